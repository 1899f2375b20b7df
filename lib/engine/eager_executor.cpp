#include "engine/eager_executor.h"

namespace trainer {

EagerExecutor::EagerExecutor(Task& task, FusedOptimizer& optimizer, LossScaler& scaler, ModelEma* ema,
                             StepConfig config, Collective& collective)
    : core_(task, optimizer, scaler, ema, config, collective) {}

void EagerExecutor::micro_step(const Batch& batch, int64_t group_samples, bool padding) {
  input_shapes_.insert(batch.input.sizes().vec());
  core_.prepare_micro_step(group_samples, padding, batch.size);
  core_.micro_step(batch);
}

void EagerExecutor::update() {
  core_.prepare_update();
  core_.update();
}

ExecutionReport EagerExecutor::report() const {
  ExecutionReport report;
  report.executor = "eager";
  report.input_shapes = static_cast<int64_t>(input_shapes_.size());
  return report;
}

}  // namespace trainer
