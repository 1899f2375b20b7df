#include "data/ocr/bucket_sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "data/rng.h"

namespace trainer {
namespace {

template <typename T>
void shuffle(std::vector<T>& items, SplitMix64& rng) {
  for (size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[rng.below(i)]);
}

// `total` split in proportion to `weights` by largest remainders (ties to the lower index), so
// the parts sum to total exactly.
std::vector<int64_t> apportion(int64_t total, const std::vector<double>& weights) {
  const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<int64_t> parts(weights.size(), 0);
  if (!(sum > 0) || total <= 0) return parts;
  std::vector<double> remainders(weights.size());
  int64_t assigned = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    const double share = static_cast<double>(total) * weights[i] / sum;
    parts[i] = static_cast<int64_t>(std::floor(share));
    remainders[i] = share - static_cast<double>(parts[i]);
    assigned += parts[i];
  }
  std::vector<size_t> order(weights.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return remainders[a] > remainders[b]; });
  for (size_t k = 0; assigned < total; ++k, ++assigned) ++parts[order[k % order.size()]];
  return parts;
}

// `count` items of `cell`: whole shuffled passes over it, the last one cut short.
std::vector<size_t> draw(const std::vector<size_t>& cell, int64_t count, SplitMix64& rng) {
  std::vector<size_t> drawn;
  while (static_cast<int64_t>(drawn.size()) < count && !cell.empty()) {
    std::vector<size_t> pass = cell;
    shuffle(pass, rng);
    pass.resize(std::min(pass.size(), static_cast<size_t>(count) - drawn.size()));
    drawn.insert(drawn.end(), pass.begin(), pass.end());
  }
  return drawn;
}

// The epoch's samples per bucket, before shuffling.
std::vector<std::vector<size_t>> epoch_samples(const std::vector<size_t>& indices, const BucketSampling& sampling,
                                               int64_t buckets, uint64_t seed, int64_t epoch) {
  std::vector<std::vector<size_t>> per_bucket(static_cast<size_t>(buckets));
  if (sampling.group_ratio.empty()) {
    for (size_t i : indices) per_bucket[static_cast<size_t>(sampling.bucket.at(i))].push_back(i);
    return per_bucket;
  }
  const size_t groups = sampling.group_ratio.size();
  std::vector<std::vector<std::vector<size_t>>> cells(groups, std::vector<std::vector<size_t>>(per_bucket.size()));
  for (size_t i : indices) {
    const auto group = static_cast<size_t>(sampling.group.at(i));
    TORCH_INTERNAL_ASSERT(group < groups, "sample ", i, " is in group ", group, " of ", groups);
    cells[group][static_cast<size_t>(sampling.bucket.at(i))].push_back(i);
  }
  const std::vector<int64_t> quotas = apportion(static_cast<int64_t>(indices.size()), sampling.group_ratio);
  for (size_t g = 0; g < groups; ++g) {
    std::vector<double> cell_sizes;
    for (const auto& cell : cells[g]) cell_sizes.push_back(static_cast<double>(cell.size()));
    const std::vector<int64_t> counts = apportion(quotas[g], cell_sizes);
    for (size_t b = 0; b < per_bucket.size(); ++b) {
      SplitMix64 rng(derive_seed(seed, RngStream::group_mix, {static_cast<uint64_t>(epoch), g, b}));
      const std::vector<size_t> drawn = draw(cells[g][b], counts[b], rng);
      per_bucket[b].insert(per_bucket[b].end(), drawn.begin(), drawn.end());
    }
  }
  return per_bucket;
}

}  // namespace

int64_t bucket_of(const std::vector<int64_t>& widths, int64_t width) {
  TORCH_INTERNAL_ASSERT(!widths.empty(), "no bucket widths");
  const auto it = std::lower_bound(widths.begin(), widths.end(), width);
  return it == widths.end() ? static_cast<int64_t>(widths.size()) - 1 : static_cast<int64_t>(it - widths.begin());
}

std::vector<std::vector<size_t>> bucket_batches(const std::vector<size_t>& indices, const BucketSampling& sampling,
                                                uint64_t seed, int64_t epoch, int64_t batch) {
  TORCH_INTERNAL_ASSERT(batch >= 1, "batch must be >= 1, got ", batch);
  int64_t buckets = 0;
  for (size_t i : indices) buckets = std::max(buckets, sampling.bucket.at(i) + 1);
  std::vector<std::vector<size_t>> batches;
  auto per_bucket = epoch_samples(indices, sampling, buckets, seed, epoch);
  for (size_t b = 0; b < per_bucket.size(); ++b) {
    SplitMix64 rng(derive_seed(seed, RngStream::epoch_order, {static_cast<uint64_t>(epoch), b}));
    shuffle(per_bucket[b], rng);
    for (size_t start = 0; start < per_bucket[b].size(); start += static_cast<size_t>(batch)) {
      const size_t end = std::min(per_bucket[b].size(), start + static_cast<size_t>(batch));
      batches.emplace_back(per_bucket[b].begin() + static_cast<long>(start), per_bucket[b].begin() + static_cast<long>(end));
    }
  }
  SplitMix64 rng(derive_seed(seed, RngStream::batch_order, {static_cast<uint64_t>(epoch)}));
  shuffle(batches, rng);
  return batches;
}

std::vector<std::vector<size_t>> bucket_batches_in_order(const std::vector<size_t>& indices,
                                                         const std::vector<int64_t>& bucket, int64_t batch) {
  std::vector<size_t> order = indices;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bucket.at(a) < bucket.at(b); });
  std::vector<std::vector<size_t>> batches;
  for (size_t start = 0; start < order.size();) {
    size_t end = start;
    while (end < order.size() && end - start < static_cast<size_t>(batch) && bucket.at(order[end]) == bucket.at(order[start])) ++end;
    batches.emplace_back(order.begin() + static_cast<long>(start), order.begin() + static_cast<long>(end));
    start = end;
  }
  return batches;
}

}  // namespace trainer
