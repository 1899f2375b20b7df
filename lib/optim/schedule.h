// Learning-rate and momentum schedule counted in optimizer updates, not micro-batches (R12). The
// schedule's steps are updates, or epochs of updates where it changes at epoch ends only, as
// timm's schedulers do by default (timm/scheduler: cosine_lr.py, step_lr.py, multistep_lr.py).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

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
  // timm's warmup: every LR rises from this value to lr0 by equal steps, momentum constant.
  std::optional<double> warmup_lr;
  int64_t step_updates = 1;        ///< updates per schedule step: 1, or the updates of an epoch
  int64_t shape_updates = 0;       ///< updates the shape spans (0 = total_updates); cool-down follows it
  double decay_steps = 1;          ///< step: schedule steps between decays
  std::vector<int64_t> milestones; ///< multistep: schedule steps of the decays
  double decay_rate = 0.1;         ///< step and multistep
};

struct ScheduleValues {
  double lr = 0;        ///< weights and norm parameters
  double bias_lr = 0;   ///< biases (Ultralytics' warmup_bias_lr rule)
  double momentum = 0;
};

// Multiplier of lr0 at training progress x in [0, 1] without warmup (linear, cosine, onecycle,
// constant).
double schedule_factor(SchedulerKind kind, double lrf, double x);

// Values for the update with 0-based index `update`. Ultralytics' warmup: update u reaches
// (u + 1) / warmup_updates of the way from the warmup start values to the schedule. timm's
// (warmup_lr set): schedule step t of warmup_t starts at warmup_lr + t (lr0 - warmup_lr) / warmup_t.
ScheduleValues schedule_at(const ScheduleOptions& options, int64_t update);

}  // namespace trainer
