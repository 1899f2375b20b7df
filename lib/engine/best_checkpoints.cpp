#include "engine/best_checkpoints.h"

#include <algorithm>

namespace trainer {

HistoryChange admit_checkpoint(std::vector<KeptCheckpoint>& kept, int64_t limit, const KeptCheckpoint& candidate) {
  HistoryChange change;
  const auto room = static_cast<size_t>(std::max<int64_t>(limit, 0));
  // A run resumed with a smaller keep_best lets the worst beyond it go first.
  while (kept.size() > room) {
    change.removed.push_back(kept.back().epoch);
    kept.pop_back();
  }
  if (room == 0 || (kept.size() == room && !(candidate.fitness > kept.back().fitness))) return change;
  if (kept.size() == room) {
    change.removed.push_back(kept.back().epoch);
    kept.pop_back();
  }
  const auto after = std::find_if(kept.begin(), kept.end(),
                                  [&](const KeptCheckpoint& other) { return other.fitness <= candidate.fitness; });
  kept.insert(after, candidate);
  change.save = true;
  return change;
}

}  // namespace trainer
