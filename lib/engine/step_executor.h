// Runs micro-steps and updates. This eager executor is the reference; a graph-capturing one
// (compile=reduce-overhead) will implement the same interface, so the loop never branches on it.
#pragma once
#include <optional>
#include <vector>

#include "dist/collective.h"
#include "dist/gradient_all_reducer.h"
#include "engine/fused_optimizer.h"
#include "engine/loss_scaler.h"
#include "engine/model_ema.h"
#include "tasks/task.h"

namespace trainer {

struct StepConfig {
  torch::Device device = torch::Device(torch::kCPU);
  std::optional<at::ScalarType> amp_dtype;
  double grad_clip = 0;
};

// Host copies of the device-side sums since the last read-back.
struct StepStats {
  std::vector<double> loss_sums;  ///< each loss part summed over the samples
  double grad_norm = 0;        ///< mean pre-clip total grad norm over the updates
  int64_t samples = 0;
  int64_t updates = 0;
  int64_t skipped_updates = 0; ///< updates dropped for inf/NaN gradients
  double loss_scale = 1;

  std::vector<double> mean_losses() const;  ///< per-sample mean of each loss part
};

class StepExecutor {
 public:
  // With several ranks, `collective` sums the gradients in update() (R17).
  StepExecutor(Task& task, FusedOptimizer& optimizer, LossScaler& scaler, ModelEma* ema, StepConfig config,
               Collective& collective = single_process());

  // Forward and loss under autocast, loss / task.loss_divisor(group_samples) * scale, backward into the
  // accumulated gradients (R7–R9). `group_samples` counts the group's samples on all ranks.
  // A padding micro-batch (dist/epoch_shard.h) runs with weight 0 and is left out of the
  // statistics. Nothing is read back to the host.
  void micro_step(const Batch& batch, int64_t group_samples, bool padding = false);
  // Gradients summed over all ranks (so every rank holds the group's gradient and takes the same
  // step), unscale, finite check, clip once (R10), step or skip, scaler update, rank 0's buffers,
  // EMA (R11), zero grads; the grads are read only twice (norm, then the optimizer's pass) after
  // the all-reduce, see update().
  void update();
  // The single host-device synchronisation: copies the running sums and resets them.
  StepStats read_stats();

  const std::vector<torch::Tensor>& parameters() const { return parameters_; }
  const GradientAllReducer& gradient_reducer() const { return gradient_reducer_; }

 private:
  Task& task_;
  FusedOptimizer& optimizer_;
  LossScaler& scaler_;
  ModelEma* ema_;
  StepConfig config_;
  Collective& collective_;
  GradientAllReducer gradient_reducer_;
  std::vector<torch::Tensor> parameters_;
  torch::Tensor loss_sums_;
  torch::Tensor grad_norm_sum_;
  torch::Tensor skipped_sum_;
  int64_t samples_ = 0;
  int64_t updates_ = 0;
};

}  // namespace trainer
