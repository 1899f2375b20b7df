#include "dist/epoch_shard.h"

#include <c10/util/Exception.h>

#include "data/sampler.h"
#include "util/error.h"

namespace trainer {

int64_t slots_per_rank(int64_t batches, int64_t world_size) { return (batches + world_size - 1) / world_size; }

EpochShard::EpochShard(const std::vector<std::vector<size_t>>& batches, int64_t anchor, int64_t accumulate,
                       const WorldLayout& world)
    : batch_count_(static_cast<int64_t>(batches.size())),
      anchor_(anchor),
      accumulate_(accumulate),
      world_size_(world.world_size),
      rank_(world.rank) {
  // An anchor at the end is a checkpoint taken after the last micro-batch, before validation.
  TORCH_INTERNAL_ASSERT(anchor_ >= 0 && anchor_ <= batch_count_, "shard anchor ", anchor_, " outside the epoch's ",
                        batch_count_, " micro-batches");
  const int64_t slots = slots_per_rank(batch_count_ - anchor_, world_size_);
  for (int64_t slot = 0; slot < slots; ++slot) {
    // Padding repeats a real micro-batch so the rank computes the same kind of step as the others.
    rank_batches_.push_back(batches[static_cast<size_t>(global_index(slot) % batch_count_)]);
  }
  const int64_t group_span = accumulate_ * world_size_;
  for (int64_t first = anchor_; first < batch_count_; first += group_span) {
    group_samples_.push_back(samples_in(batches, first, std::min(group_span, batch_count_ - first)));
  }
  TORCH_INTERNAL_ASSERT(updates() == (slots + accumulate_ - 1) / accumulate_, "groups and slots disagree");
}

ShardStart resume_start(int64_t position, int64_t anchor, int64_t saved_world_size, int64_t world_size,
                        bool inside_group) {
  if (saved_world_size == world_size) {
    // Rounded up: only a finished shard ends off the slot grid (its last slots were padding).
    return {anchor, (position - anchor + world_size - 1) / world_size};
  }
  if (inside_group) {
    throw UserError("the checkpoint was written inside an accumulation group by a run of " +
                    std::to_string(saved_world_size) + " rank(s); its partial gradients cannot be continued by " +
                    std::to_string(world_size) + " rank(s). Resume it with " + std::to_string(saved_world_size) +
                    " rank(s), or from a checkpoint written at an update (an epoch end or save_interval)");
  }
  return {position, 0};
}

}  // namespace trainer
