// One optimizer update as every driver of an executor makes it (the training loop, the compile
// probe, the smoke check): the update's place in the schedule sets the learning rate of each
// parameter group (and SGD's warmup momentum), then the executor updates.
#pragma once
#include <cstdint>
#include <utility>

#include "config/setting_types.h"
#include "engine/step_executor.h"
#include "optim/fused_optimizer.h"
#include "optim/schedule.h"

namespace trainer {

class UpdateStep {
 public:
  // `schedule`: schedule_options() of the run's plan.
  UpdateStep(StepExecutor& executor, FusedOptimizer& optimizer, ScheduleOptions schedule, OptimizerKind optimizer_kind);

  // What the update at `schedule_step` (0-based, counted over the whole run) uses.
  ScheduleValues values_at(int64_t schedule_step) const { return schedule_at(schedule_, schedule_step); }
  void micro_step(const Batch& batch, int64_t group_samples, bool padding = false) {
    executor_.micro_step(batch, group_samples, padding);
  }
  // The run's length changed (time=): the schedule of its new plan.
  void set_schedule(ScheduleOptions schedule) { schedule_ = std::move(schedule); }
  // Sets the schedule's values for `schedule_step` on the optimizer, then updates; returns them.
  ScheduleValues update(int64_t schedule_step);

 private:
  StepExecutor& executor_;
  FusedOptimizer& optimizer_;
  ScheduleOptions schedule_;
  OptimizerKind optimizer_kind_;
};

}  // namespace trainer
