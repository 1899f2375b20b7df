#include "data/sampler.h"

#include <cmath>
#include <numeric>

#include "data/rng.h"

namespace trainer {

std::vector<size_t> subset_indices(size_t n, double fraction, uint64_t seed) {
  TORCH_INTERNAL_ASSERT(fraction > 0 && fraction <= 1, "fraction must be in (0, 1], got ", fraction);
  std::vector<size_t> indices(n);
  std::iota(indices.begin(), indices.end(), size_t{0});
  const size_t keep = std::clamp<size_t>(size_t(std::llround(double(n) * fraction)), n ? 1 : 0, n);
  if (keep == n) return indices;
  // A partial Fisher-Yates: only the first `keep` slots need drawing.
  SplitMix64 rng(derive_seed(seed, RngStream::subset, {}));
  for (size_t i = 0; i < keep; ++i) std::swap(indices[i], indices[i + rng.below(n - i)]);
  indices.resize(keep);
  std::sort(indices.begin(), indices.end());
  return indices;
}

std::vector<size_t> epoch_order(const std::vector<size_t>& indices, uint64_t seed, int64_t epoch,
                                bool shuffle) {
  std::vector<size_t> order = indices;
  if (!shuffle) return order;
  SplitMix64 rng(derive_seed(seed, RngStream::epoch_order, {uint64_t(epoch)}));
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  return order;
}

std::vector<std::vector<size_t>> make_batches(const std::vector<size_t>& order, int64_t batch,
                                              bool drop_last) {
  TORCH_INTERNAL_ASSERT(batch >= 1, "batch must be >= 1, got ", batch);
  std::vector<std::vector<size_t>> batches;
  for (size_t start = 0; start < order.size(); start += size_t(batch)) {
    const size_t end = std::min(order.size(), start + size_t(batch));
    if (drop_last && end - start < size_t(batch)) break;
    batches.emplace_back(order.begin() + long(start), order.begin() + long(end));
  }
  return batches;
}

std::vector<std::vector<size_t>> shard_batches(const std::vector<std::vector<size_t>>& batches, const Shard& shard) {
  std::vector<std::vector<size_t>> share;
  for (size_t i = static_cast<size_t>(shard.rank); i < batches.size(); i += static_cast<size_t>(shard.count)) {
    share.push_back(batches[i]);
  }
  return share;
}

int64_t samples_in(const std::vector<std::vector<size_t>>& batches, int64_t first, int64_t count) {
  int64_t samples = 0;
  for (int64_t i = first; i < first + count; ++i) samples += static_cast<int64_t>(batches.at(static_cast<size_t>(i)).size());
  return samples;
}

}  // namespace trainer
