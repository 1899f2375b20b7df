#include "engine/update_step.h"

#include <utility>

#include "optim/param_groups.h"

namespace trainer {

UpdateStep::UpdateStep(StepExecutor& executor, FusedOptimizer& optimizer, ScheduleOptions schedule,
                       OptimizerKind optimizer_kind)
    : executor_(executor), optimizer_(optimizer), schedule_(std::move(schedule)), optimizer_kind_(optimizer_kind) {}

ScheduleValues UpdateStep::update(int64_t schedule_step) {
  const ScheduleValues values = values_at(schedule_step);
  optimizer_.set_lr(kWeightGroup, values.lr);
  optimizer_.set_lr(kNormGroup, values.lr);
  optimizer_.set_lr(kBiasGroup, values.bias_lr);
  // Ultralytics warms up SGD momentum only; AdamW's beta1 stays fixed.
  if (optimizer_kind_ == OptimizerKind::sgd) optimizer_.set_momentum(values.momentum);
  executor_.update();
  return values;
}

}  // namespace trainer
