// Runs micro-steps and updates. The training loop talks only to this interface, so it never knows
// whether the step runs eagerly or replays captured CUDA graphs (compile=reduce-overhead).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dist/collective.h"
#include "engine/execution_config.h"
#include "engine/model_ema.h"
#include "engine/task.h"
#include "optim/fused_optimizer.h"
#include "optim/loss_scaler.h"

namespace trainer {

struct StepConfig {
  torch::Device device = torch::Device(torch::kCPU);
  std::optional<at::ScalarType> amp_dtype;
  double grad_clip = 0;
  ExecutionConfig execution;    ///< resolved compile mode
  int64_t capture_limit = 8;    ///< graphs kept per run (compile_cache_limit)
  int64_t micro_batch = 0;      ///< full micro-batch size: smaller batches run eagerly (0: none is smaller)
};

// Host copies of the device-side sums since the last read-back.
struct StepStats {
  std::vector<double>
      loss_sums;  ///< each loss part's per-sample mean of a micro-batch, summed over them
  double grad_norm = 0;        ///< mean pre-clip total grad norm over the updates
  int64_t samples = 0;
  int64_t batches = 0;  ///< live micro-batches
  int64_t updates = 0;
  int64_t skipped_updates = 0; ///< updates dropped for inf/NaN gradients
  double loss_scale = 1;

  // Each loss part's per-batch mean averaged over the micro-batches, as Ultralytics' displayed
  // tloss = (tloss * i + loss_items) / (i + 1): independent of accumulate and of the batch size.
  std::vector<double> mean_losses() const;
};

// How the steps ran, for the run's results (R2: captures over a whole run should be few).
struct ExecutionReport {
  std::string executor;        ///< "eager", or which part runs as CUDA graphs; the layout if not the default
  int64_t input_shapes = 0;    ///< distinct micro-batch shapes met
  int64_t graph_captures = 0;  ///< graphs captured (one per shape up to compile_cache_limit)
  int64_t eager_shapes = 0;    ///< shapes that ran eagerly because the limit was reached
  int64_t short_batch_shapes = 0;  ///< shapes of short batches (epoch or bucket tails), always eager
};

class StepExecutor {
 public:
  virtual ~StepExecutor() = default;
  // Forward and loss under autocast, loss / task.loss_divisor(group_samples) * scale, backward into the
  // accumulated gradients (R7–R9). `group_samples` counts the group's samples on all ranks.
  // A padding micro-batch (dist/epoch_shard.h) runs with weight 0 and is left out of the
  // statistics. Nothing is read back to the host.
  virtual void micro_step(const Batch& batch, int64_t group_samples, bool padding = false) = 0;
  // Gradients summed over all ranks (so every rank holds the group's gradient and takes the same
  // step), unscale, finite check, clip once (R10), step or skip, scaler update, rank 0's buffers,
  // EMA (R11), zero grads.
  virtual void update() = 0;
  // The single host-device synchronisation: copies the running sums and resets them.
  virtual StepStats read_stats() = 0;
  virtual ExecutionReport report() const = 0;
  // Updates whose gradients were summed over ranks (0 in one process).
  virtual int64_t gradient_all_reduces() const = 0;
};

}  // namespace trainer
