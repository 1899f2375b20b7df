// Which of an epoch's micro-batches one rank runs (R17). Every rank cuts the same micro-batches
// (TaskTraining::epoch_batches is a pure function of seed and epoch); from micro-batch `anchor`
// on, rank r of W takes anchor + r, anchor + r + W, … Its k-th accumulation group is then the global
// micro-batches [anchor + k·A·W, anchor + (k+1)·A·W), the same samples one process would see as
// its k-th group of A·W micro-batches.
//
// Every rank gets ceil((n − anchor) / W) slots, so all ranks run the same number of micro-batches
// and meet in every collective. A slot past the end is padding: the rank repeats a micro-batch
// with weight 0, which keeps it in step (SyncBatchNorm communicates in every forward and
// backward) and adds nothing to gradients or statistics. Nothing is dropped.
#pragma once
#include <cstdint>
#include <vector>

#include "dist/collective.h"

namespace trainer {

class EpochShard {
 public:
  EpochShard(const std::vector<std::vector<size_t>>& batches, int64_t anchor, int64_t accumulate,
             const WorldLayout& world);

  const std::vector<std::vector<size_t>>& rank_batches() const { return rank_batches_; }
  int64_t slots() const { return static_cast<int64_t>(rank_batches_.size()); }
  bool is_padding(int64_t slot) const { return global_index(slot) >= batch_count_; }
  int64_t updates() const { return static_cast<int64_t>(group_samples_.size()); }
  int64_t group_of(int64_t slot) const { return slot / accumulate_; }
  int64_t group_end(int64_t group) const { return std::min((group + 1) * accumulate_, slots()); }
  // Samples of all ranks in a group: what each micro-batch loss is divided by.
  int64_t group_samples(int64_t group) const { return group_samples_.at(static_cast<size_t>(group)); }
  // Updates of this geometry that fit before the anchor: where the shard's first group sits in the
  // epoch's schedule.
  int64_t first_update() const { return anchor_ / (accumulate_ * world_size_); }
  int64_t anchor() const { return anchor_; }
  // The epoch's micro-batches consumed by all ranks once each has run `slots_done` slots: the
  // world-size-independent position a checkpoint records.
  int64_t position(int64_t slots_done) const { return std::min(global_index(slots_done) - rank_, batch_count_); }

 private:
  int64_t global_index(int64_t slot) const { return anchor_ + slot * world_size_ + rank_; }

  int64_t batch_count_;
  int64_t anchor_;
  int64_t accumulate_;
  int64_t world_size_;
  int64_t rank_;
  std::vector<std::vector<size_t>> rank_batches_;
  std::vector<int64_t> group_samples_;
};

// Micro-batches each of `world_size` ranks runs in an epoch of `batches` micro-batches.
int64_t slots_per_rank(int64_t batches, int64_t world_size);

// Where a run continues an epoch that a checkpoint left `position` micro-batches in, its shard
// anchored at `anchor` with `saved_world_size` ranks.
struct ShardStart {
  int64_t anchor = 0;
  int64_t slot = 0;
};
// The same world size continues the same shard. Another one re-anchors at the position, which
// must lie between updates (`inside_group` false): the gradients of a half-done group belong to
// the old geometry.
ShardStart resume_start(int64_t position, int64_t anchor, int64_t saved_world_size, int64_t world_size,
                        bool inside_group);

}  // namespace trainer
