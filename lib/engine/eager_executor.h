// The reference executor: every micro-step and update runs operator by operator. The graph
// executor must match its numbers.
#pragma once
#include <set>
#include <vector>

#include "engine/step_core.h"

namespace trainer {

class EagerExecutor : public StepExecutor {
 public:
  // With several ranks, `collective` sums the gradients in update() (R17).
  EagerExecutor(Task& task, FusedOptimizer& optimizer, LossScaler& scaler, ModelEma* ema, StepConfig config,
                Collective& collective = single_process());

  void micro_step(const Batch& batch, int64_t group_samples, bool padding = false) override;
  void update() override;
  StepStats read_stats() override { return core_.read_stats(); }
  ExecutionReport report() const override;
  int64_t gradient_all_reduces() const override { return core_.gradient_reducer().rounds(); }

  const std::vector<torch::Tensor>& parameters() const { return core_.parameters(); }

 private:
  StepCore core_;
  std::set<std::vector<int64_t>> input_shapes_;
};

}  // namespace trainer
