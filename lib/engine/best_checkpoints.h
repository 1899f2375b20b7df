// timm's CheckpointSaver history (--checkpoint-hist, keep_best here): the epoch checkpoints of the
// best validations are kept, at most `limit` of them; a better one displaces the worst.
#pragma once
#include <cstdint>
#include <vector>

namespace trainer {

struct KeptCheckpoint {
  int64_t epoch = 0;  // 1-based, as results.csv counts
  double fitness = 0;
};

struct HistoryChange {
  bool save = false;             // write the candidate's checkpoint
  std::vector<int64_t> removed;  // the epochs whose checkpoints to delete
};

// Adds `candidate` to `kept` (best first) when there is room or it is strictly better than the worst,
// which then goes, as timm's save_checkpoint does; among equal fitness the newer ranks first.
// `limit` 0 keeps none; kept beyond `limit` (a resumed run given a smaller one) are removed.
HistoryChange admit_checkpoint(std::vector<KeptCheckpoint>& kept, int64_t limit, const KeptCheckpoint& candidate);

}  // namespace trainer
