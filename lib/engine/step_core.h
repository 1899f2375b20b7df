// The device-side work of micro-steps and updates, shared by the eager and the graph executor.
// Everything that changes between calls reaches the device as tensors filled beforehand (the
// loss weights here, the learning rates in the optimizer, the decay in the EMA), and nothing
// reads the device back, so micro_step() and update() can be captured in a CUDA graph and
// replayed as they are.
#pragma once
#include <vector>

#include "dist/gradient_all_reducer.h"
#include "engine/step_executor.h"

namespace trainer {

class StepCore {
 public:
  StepCore(Task& task, FusedOptimizer& optimizer, LossScaler& scaler, ModelEma* ema, const StepConfig& config,
           Collective& collective);

  // Host side of a micro-step, before it runs: the loss weight of its group (1 / the task's
  // divisor, or 0 for a padding micro-batch) and the sample count.
  void prepare_micro_step(int64_t group_samples, bool padding, int64_t samples);
  // Forward and loss under autocast, weighted, scaled, backward into the accumulated grads.
  void micro_step(const Batch& batch);
  // micro_step() in three parts at the model's output (the task's loss_split()), so the model's
  // forward and backward can be captured while the loss runs eagerly: the output under autocast;
  // the weighted, scaled loss's gradient with respect to that output; and the backward from the
  // output with that gradient, which frees the saved activations as it goes.
  torch::Tensor model_output(const Batch& batch);
  torch::Tensor output_gradient(const torch::Tensor& output, const Batch& batch);
  void backward_from_output(const torch::Tensor& output, const torch::Tensor& gradient);
  // Before update(), outside any graph: sums the gradients over ranks (R17; the collective may
  // not be a CUDA one), sends rank 0's buffers to every rank (the update leaves them alone, and
  // the EMA averages them), counts the update and hands the EMA its decay for it.
  void prepare_update();
  // Norm, finite check, clip, step or skip, loss-scale update, statistics, EMA; zeroes the grads.
  void update();
  // Copies the running sums to the host (the one sync) and resets them.
  StepStats read_stats();

  const std::vector<torch::Tensor>& parameters() const { return parameters_; }
  const GradientAllReducer& gradient_reducer() const { return gradient_reducer_; }
  // The input as the configured memory layout wants it.
  torch::Tensor laid_out(const torch::Tensor& input) const;

 private:
  std::vector<torch::Tensor> defined_grads() const;
  // Adds a live micro-batch's per-sample mean loss parts to the running sums and returns its
  // total ÷ the group's divisor (0 for a padding micro-batch), ready to scale.
  torch::Tensor weighted(const LossOutput& output);
  Batch laid_out(const Batch& batch) const;

  Task& task_;
  TaskTraining& training_;  // the task's training part
  FusedOptimizer& optimizer_;
  LossScaler& scaler_;
  ModelEma* ema_;
  StepConfig config_;
  Collective& collective_;
  GradientAllReducer gradient_reducer_;
  LossSplit* split_;  // the task's, or nullptr
  std::vector<torch::Tensor> parameters_;
  torch::Tensor loss_divisor_;  // 0-dim: the task's divisor for the micro-step's group
  torch::Tensor live_;          // 0-dim: 1, or 0 for a padding micro-batch
  torch::Tensor batch_samples_;  // 0-dim: the micro-batch's samples (its logged means' divisor)
  torch::Tensor loss_sums_;
  torch::Tensor grad_norm_sum_;
  torch::Tensor skipped_sum_;
  int64_t samples_ = 0;
  int64_t batches_ = 0;
  int64_t updates_ = 0;
};

}  // namespace trainer
