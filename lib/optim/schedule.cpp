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
    case SchedulerKind::constant: return 1.0;
  }
  return 1.0;
}

ScheduleValues schedule_at(const ScheduleOptions& options, int64_t update) {
  const double progress =
      static_cast<double>(update) / static_cast<double>(std::max<int64_t>(options.total_updates, 1));
  const double scheduled = options.lr0 * schedule_factor(options.kind, options.lrf, progress);
  ScheduleValues values{scheduled, scheduled, options.momentum};
  if (update < options.warmup_updates) {
    const double ramp = static_cast<double>(update + 1) / static_cast<double>(options.warmup_updates);
    values.lr = scheduled * ramp;
    values.bias_lr = options.warmup_bias_lr + (scheduled - options.warmup_bias_lr) * ramp;
    values.momentum = options.warmup_momentum + (options.momentum - options.warmup_momentum) * ramp;
  }
  return values;
}

}  // namespace trainer
