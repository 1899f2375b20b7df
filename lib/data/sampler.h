// Which samples an epoch visits, in what order, in which batches. Pure functions of their
// arguments, so a resumed run replays exactly the order it would have seen.
#pragma once
#include <cstdint>
#include <vector>

namespace trainer {

// A fixed, sorted share round(n * fraction) (at least one when n > 0) of 0..n-1, the same for a
// given seed in every epoch. fraction in (0, 1]; 1 keeps everything.
std::vector<size_t> subset_indices(size_t n, double fraction, uint64_t seed);

// `indices` shuffled by a generator seeded from (seed, epoch) alone, or unchanged without shuffle.
std::vector<size_t> epoch_order(const std::vector<size_t>& indices, uint64_t seed, int64_t epoch,
                                bool shuffle);

// Consecutive runs of `batch` indices; the short remainder is kept unless drop_last.
std::vector<std::vector<size_t>> make_batches(const std::vector<size_t>& order, int64_t batch,
                                              bool drop_last);

// One process's share of an evaluation that several ranks split: batches rank, rank + count, …
struct Shard {
  int64_t rank = 0;
  int64_t count = 1;
};
std::vector<std::vector<size_t>> shard_batches(const std::vector<std::vector<size_t>>& batches, const Shard& shard);

// Samples in batches[first, first + count): what one accumulation group normalises by.
int64_t samples_in(const std::vector<std::vector<size_t>>& batches, int64_t first, int64_t count);

}  // namespace trainer
