// Learning-rate and momentum schedule counted in optimizer updates, not micro-batches (R12).
#pragma once
#include <cstdint>

#include "config/settings.h"

namespace trainer {

struct ScheduleOptions {
  SchedulerKind kind = SchedulerKind::linear;
  double lr0 = 0.01;               ///< peak LR after lr_scale
  double lrf = 0.01;               ///< final LR = lr0 * lrf
  int64_t total_updates = 1;       ///< >= 1
  int64_t warmup_updates = 0;      ///< first updates ramp up linearly
  double warmup_bias_lr = 0.1;     ///< bias LR at the start of warmup (falls to the schedule)
  double momentum = 0.937;
  double warmup_momentum = 0.8;    ///< momentum at the start of warmup (rises to momentum)
};

struct ScheduleValues {
  double lr = 0;        ///< weights and norm parameters
  double bias_lr = 0;   ///< biases (Ultralytics' warmup_bias_lr rule)
  double momentum = 0;
};

// Multiplier of lr0 at training progress x in [0, 1] without warmup.
double schedule_factor(SchedulerKind kind, double lrf, double x);

// Values for the update with 0-based index `update`: during warmup, update u reaches
// (u + 1) / warmup_updates of the way from the warmup start values to the schedule.
ScheduleValues schedule_at(const ScheduleOptions& options, int64_t update);

}  // namespace trainer
