#include "engine/update_step.h"

#include <utility>


namespace trainer {

UpdateStep::UpdateStep(StepExecutor& executor, FusedOptimizer& optimizer, ScheduleOptions schedule,
                       OptimizerKind optimizer_kind)
    : executor_(executor), optimizer_(optimizer), schedule_(std::move(schedule)), optimizer_kind_(optimizer_kind) {}

ScheduleValues UpdateStep::update(int64_t schedule_step) {
  const ScheduleValues values = values_at(schedule_step);
  for (size_t group = 0; group < optimizer_.group_count(); ++group) {
    optimizer_.set_lr(group, optimizer_.group_role(group) == ParamRole::bias ? values.bias_lr : values.lr);
  }
  // Ultralytics warms up the momentum of SGD's and MuSGD's groups only; AdamW's beta1 stays fixed.
  if (optimizer_kind_ == OptimizerKind::sgd || optimizer_kind_ == OptimizerKind::musgd) {
    optimizer_.set_momentum(values.momentum);
  }
  executor_.update();
  return values;
}

}  // namespace trainer
