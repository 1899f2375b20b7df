// Width buckets (R2, R19): every batch holds one bucket, so the run sees at most as many input
// shapes as buckets; an epoch is a pure function of (seed, epoch); batch_ratio mixes groups in
// proportion while the batch count stays fixed across epochs.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "data/ocr/bucket_sampler.h"

using namespace trainer;

namespace {

// 200 samples: bucket i % 4 (uneven: bucket 3 gets only the multiples of 12), group by index half.
BucketSampling example(std::vector<double> ratios = {}) {
  BucketSampling sampling;
  for (size_t i = 0; i < 200; ++i) {
    sampling.bucket.push_back(i % 12 == 0 ? 3 : static_cast<int64_t>(i % 3));
    sampling.group.push_back(i < 150 ? 0 : 1);
  }
  sampling.group_ratio = std::move(ratios);
  return sampling;
}

std::vector<size_t> all_indices(size_t n) {
  std::vector<size_t> indices(n);
  for (size_t i = 0; i < n; ++i) indices[i] = i;
  return indices;
}

}  // namespace

TEST_CASE("bucket_of picks the narrowest width that holds the sample", "[ocr][buckets]") {
  const std::vector<int64_t> widths{64, 128, 192, 200};
  CHECK(bucket_of(widths, 1) == 0);
  CHECK(bucket_of(widths, 64) == 0);
  CHECK(bucket_of(widths, 65) == 1);
  CHECK(bucket_of(widths, 193) == 3);
  CHECK(bucket_of(widths, 5000) == 3);  // wider than imgW: squeezed into the last bucket
}

TEST_CASE("every batch holds one bucket and every sample appears once per epoch", "[ocr][buckets]") {
  const BucketSampling sampling = example();
  const auto indices = all_indices(200);
  for (int64_t epoch : {0, 1, 5}) {
    const auto batches = bucket_batches(indices, sampling, 7, epoch, 16);
    std::multiset<size_t> seen;
    std::set<int64_t> buckets;
    int64_t short_batches = 0;
    for (const auto& batch : batches) {
      REQUIRE_FALSE(batch.empty());
      CHECK(batch.size() <= 16);
      short_batches += batch.size() < 16;
      for (size_t i : batch) {
        CHECK(sampling.bucket[i] == sampling.bucket[batch.front()]);
        seen.insert(i);
      }
      buckets.insert(sampling.bucket[batch.front()]);
    }
    CHECK(seen == std::multiset<size_t>(indices.begin(), indices.end()));
    CHECK(buckets.size() == 4);      // distinct batch shapes = buckets in use
    CHECK(short_batches <= 4);       // at most one short remainder per bucket
  }
}

TEST_CASE("bucketed epochs depend only on seed and epoch", "[ocr][buckets]") {
  const BucketSampling sampling = example();
  const auto indices = all_indices(200);
  CHECK(bucket_batches(indices, sampling, 7, 3, 16) == bucket_batches(indices, sampling, 7, 3, 16));
  CHECK(bucket_batches(indices, sampling, 7, 3, 16) != bucket_batches(indices, sampling, 7, 4, 16));
  CHECK(bucket_batches(indices, sampling, 7, 3, 16) != bucket_batches(indices, sampling, 8, 3, 16));
}

TEST_CASE("batch_ratio mixes groups in proportion with the same batch count every epoch", "[ocr][buckets]") {
  // Group 1 holds a quarter of the samples but gets half of every epoch (drawn repeatedly).
  const BucketSampling sampling = example({0.5, 0.5});
  const auto indices = all_indices(200);
  size_t batch_count = 0;
  std::set<size_t> group_one_seen;
  for (int64_t epoch = 0; epoch < 6; ++epoch) {
    const auto batches = bucket_batches(indices, sampling, 1, epoch, 8);
    if (epoch == 0) batch_count = batches.size();
    CHECK(batches.size() == batch_count);
    std::map<int64_t, int64_t> per_group;
    size_t samples = 0;
    for (const auto& batch : batches) {
      for (size_t i : batch) {
        CHECK(sampling.bucket[i] == sampling.bucket[batch.front()]);
        ++per_group[sampling.group[i]];
        if (sampling.group[i] == 1) group_one_seen.insert(i);
      }
      samples += batch.size();
    }
    CHECK(samples == 200);
    CHECK(per_group[0] == 100);
    CHECK(per_group[1] == 100);
  }
  CHECK(group_one_seen.size() == 50);  // every sample of the small group is used
  // Each (group, bucket) cell gets its share: group 1's bucket 3 (4 of its 50 samples) 8 of 100.
  int64_t cell = 0;
  for (const auto& batch : bucket_batches(indices, sampling, 1, 0, 8)) {
    for (size_t i : batch) cell += sampling.group[i] == 1 && sampling.bucket[i] == 3;
  }
  CHECK(cell == 8);
}

TEST_CASE("validation batches keep index order within each bucket", "[ocr][buckets]") {
  const std::vector<int64_t> bucket{1, 0, 1, 1, 0, 2};
  const auto batches = bucket_batches_in_order(all_indices(6), bucket, 2);
  CHECK(batches == std::vector<std::vector<size_t>>{{1, 4}, {0, 2}, {3}, {5}});
}
