#include "optim/schedule.h"

#include <algorithm>
#include <cmath>

namespace trainer {
namespace {

constexpr double kPi = 3.14159265358979323846;
// OneCycle as in Smith's paper and torch.optim.lr_scheduler.OneCycleLR's defaults.
constexpr double kOneCycleRise = 0.3;
constexpr double kOneCycleStartDivisor = 25.0;

double cosine_between(double from, double to, double x) {
  return to + (from - to) * (1.0 + std::cos(kPi * x)) / 2.0;
}

}  // namespace

double schedule_factor(SchedulerKind kind, double lrf, double x) {
  x = std::clamp(x, 0.0, 1.0);
  switch (kind) {
    case SchedulerKind::linear: return (1.0 - x) * (1.0 - lrf) + lrf;
    case SchedulerKind::cosine: return cosine_between(1.0, lrf, x);
    case SchedulerKind::onecycle:
      if (x < kOneCycleRise) return cosine_between(1.0 / kOneCycleStartDivisor, 1.0, x / kOneCycleRise);
      return cosine_between(1.0, lrf, (x - kOneCycleRise) / (1.0 - kOneCycleRise));
    case SchedulerKind::constant:
    case SchedulerKind::step:
    case SchedulerKind::multistep: return 1.0;
  }
  return 1.0;
}

namespace {

// lr0's multiplier at schedule step t, warmup aside.
double shape_factor(const ScheduleOptions& options, int64_t t) {
  switch (options.kind) {
    case SchedulerKind::step:
      return std::pow(options.decay_rate, std::floor(static_cast<double>(t) / options.decay_steps));
    case SchedulerKind::multistep: {
      // timm's MultiStepLRScheduler counts the milestones at or below t + 1.
      const auto passed = std::upper_bound(options.milestones.begin(), options.milestones.end(), t + 1) -
                          options.milestones.begin();
      return std::pow(options.decay_rate, static_cast<double>(passed));
    }
    default: {
      const int64_t shape = options.shape_updates > 0 ? options.shape_updates : options.total_updates;
      const double steps = static_cast<double>(std::max<int64_t>(shape, 1)) / static_cast<double>(options.step_updates);
      return schedule_factor(options.kind, options.lrf, static_cast<double>(t) / steps);
    }
  }
}

}  // namespace

ScheduleValues schedule_at(const ScheduleOptions& options, int64_t update) {
  const int64_t t = update / std::max<int64_t>(options.step_updates, 1);
  const double scheduled = options.lr0 * shape_factor(options, t);
  ScheduleValues values{scheduled, scheduled, options.momentum};
  if (options.warmup_lr) {
    const double warmup_steps =
        static_cast<double>(options.warmup_updates) / static_cast<double>(std::max<int64_t>(options.step_updates, 1));
    if (static_cast<double>(t) < warmup_steps) {
      values.lr = *options.warmup_lr + static_cast<double>(t) * (options.lr0 - *options.warmup_lr) / warmup_steps;
      values.bias_lr = values.lr;
    }
  } else if (update < options.warmup_updates) {
    const double ramp = static_cast<double>(update + 1) / static_cast<double>(options.warmup_updates);
    values.lr = scheduled * ramp;
    values.bias_lr = options.warmup_bias_lr + (scheduled - options.warmup_bias_lr) * ramp;
    values.momentum = options.warmup_momentum + (options.momentum - options.warmup_momentum) * ramp;
  }
  return values;
}

}  // namespace trainer
