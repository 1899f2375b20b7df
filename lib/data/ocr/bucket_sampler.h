// Batches of one shape for inputs of varying width (R2, R19): each sample belongs to the bucket
// of the narrowest width that holds it, and every batch draws from a single bucket, so a run sees
// as many distinct input shapes as there are buckets. Pure functions of their arguments: a
// resumed run replays the same batches.
#pragma once
#include <cstdint>
#include <vector>

namespace trainer {

// The index of the first of the ascending `widths` that is >= width; the last when none is.
int64_t bucket_of(const std::vector<int64_t>& widths, int64_t width);

struct BucketSampling {
  std::vector<int64_t> bucket;  ///< per sample (indexed by sample id), its bucket
  std::vector<int64_t> group;   ///< per sample, its data group (select_data entry)
  // Share of each group in an epoch (EasyOCR's batch_ratio); empty = every sample once per epoch.
  // With ratios an epoch still holds as many samples as `indices`, drawn from each group in
  // proportion, and from each (group, bucket) cell in proportion to its size, so the number of
  // batches is the same in every epoch.
  std::vector<double> group_ratio;
};

// The micro-batches of one epoch over `indices`: shuffled within buckets by (seed, epoch), cut
// into runs of `batch` per bucket (each bucket's remainder is a short batch), in a shuffled order.
std::vector<std::vector<size_t>> bucket_batches(const std::vector<size_t>& indices, const BucketSampling& sampling,
                                                uint64_t seed, int64_t epoch, int64_t batch);

// Fixed-order batches for validation: samples grouped by bucket in index order, `batch` at a time.
std::vector<std::vector<size_t>> bucket_batches_in_order(const std::vector<size_t>& indices,
                                                         const std::vector<int64_t>& bucket, int64_t batch);

}  // namespace trainer
