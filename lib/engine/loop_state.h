// Where the training loop stands, and what a checkpoint carries of it so that a resumed run
// continues bit for bit: the position in the epoch, the update count, the best fitness and the
// running statistics since the previous results row.
#pragma once
#include <cstdint>
#include <vector>

#include <torch/nn/module.h>

#include "dist/collective.h"
#include "engine/best_checkpoints.h"
#include "engine/step_executor.h"
#include "io/checkpoint.h"

namespace trainer {

// Host-side sums of read-back statistics over one epoch.
struct EpochTotals {
  std::vector<double> loss_sums;
  double grad_norm_sum = 0;
  int64_t samples = 0;
  int64_t batches = 0;
  int64_t updates = 0;
  int64_t skipped = 0;

  void add(const StepStats& stats);
  std::vector<double> mean_losses() const;  // per-batch means over the epoch's micro-batches
  double mean_grad_norm() const;
};

struct LoopState {
  int64_t epoch = 0;        // current epoch, 0-based (= completed epochs)
  int64_t micro_batch = 0;  // micro-batches this rank has done in the epoch's shard
  int64_t anchor = 0;       // where the epoch's shard starts (dist/epoch_shard.h)
  int64_t updates = 0;      // optimizer updates so far
  double best_fitness = -1;
  int64_t best_epoch = 0;
  int64_t best_updates = 0;
  int64_t stale_epochs = 0;  // validations since the best one (patience): epochs, or val_interval's intervals
  EpochTotals totals;        // since the previous results row
  std::vector<KeptCheckpoint> kept;  // keep_best's epoch checkpoints, best first

  // The next epoch starts from its beginning.
  void start_next_epoch();
};

// The checkpoint's "progress" entry.
NamedTensors progress_tensors(const LoopState& state, int64_t world_size);
// `world` continues where the checkpoint's run stopped, whatever its world size was.
LoopState restore_loop_state(const Checkpoint& checkpoint, const WorldLayout& world);

// The gradients of an unfinished accumulation group, and putting them back.
NamedTensors accumulated_gradients(torch::nn::Module& model);
void restore_gradients(torch::nn::Module& model, const NamedTensors& grads);

}  // namespace trainer
