#include "engine/update_step.h"

#include "optim/param_groups.h"

namespace trainer {

UpdateStep::UpdateStep(StepExecutor& executor, FusedOptimizer& optimizer, const Settings& settings,
                       const TrainingPlan& plan)
    : executor_(executor), optimizer_(optimizer), optimizer_kind_(plan.optimizer) {
  schedule_.kind = settings.schedule.scheduler;
  schedule_.lr0 = plan.lr;
  schedule_.lrf = settings.schedule.lrf;
  schedule_.total_updates = plan.total_updates;
  schedule_.warmup_updates = plan.warmup_updates;
  schedule_.warmup_bias_lr = settings.schedule.warmup_bias_lr;
  schedule_.momentum = settings.optim.momentum;
  schedule_.warmup_momentum = settings.schedule.warmup_momentum;
}

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
