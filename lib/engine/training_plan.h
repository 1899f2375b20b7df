// The batch geometry and the resolved numbers of a run (R26): what `trainer plan` prints and
// what the loop follows. Computed once from Settings, the dataset's size and batch count, and the
// world size.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include "config/settings.h"
#include "dist/collective.h"
#include "optim/schedule.h"

namespace trainer {

struct TrainingPlan {
  int64_t micro_batch = 0;
  int64_t accumulate = 0;
  int64_t world_size = 1;
  int64_t effective_batch = 0;        ///< micro_batch * accumulate * world_size
  int64_t train_samples = 0;          ///< after `fraction`
  int64_t epoch_micro_batches = 0;    ///< the task's batch count (shape buckets may add short ones), all ranks
  int64_t micro_batches_per_epoch = 0;  ///< per rank: ceil(epoch_micro_batches / world_size)
  int64_t updates_per_epoch = 0;      ///< ceil(micro-batches per rank / accumulate): short last group kept
  int64_t epochs = 0;                 ///< derived from total_updates when length_in_updates
  int64_t total_updates = 0;          ///< the schedule's and the cool-down's
  int64_t shape_updates = 0;          ///< the schedule's alone (before cooldown_epochs)
  bool length_in_updates = false;  ///< `updates=` set: the last epoch may stop part-way
  int64_t val_interval = 0;        ///< validate every N updates (0: at epoch ends)
  int64_t warmup_updates = 0;
  double lr = 0;                      ///< lr0 after lr_scale
  double weight_decay = 0;            ///< after scaling by effective batch / nbs
  OptimizerKind optimizer = OptimizerKind::sgd;
  std::optional<at::ScalarType> amp_dtype;  ///< nullopt = fp32
  bool loss_scaling = false;          ///< fp16 needs a dynamic loss scaler
  CompileMode compile = CompileMode::none;
  c10::Device device = c10::Device(c10::kCPU);
  int64_t threads = 1;
};

// The device of the recipe's `device` key for this rank: with several ranks on a machine, auto and
// cuda mean cuda:LOCAL_RANK.
c10::Device resolve_device(const std::string& device, const WorldLayout& world = {});
// threads=0 shares the machine's cores among its ranks.
int64_t resolve_threads(int64_t threads, const WorldLayout& world = {});
// classes matters for optimizer=auto (Ultralytics' rule picks AdamW for short runs).
// `epoch_micro_batches` counts the micro-batches of an epoch over all ranks.
TrainingPlan make_plan(const Settings& settings, int64_t train_samples, int64_t epoch_micro_batches,
                       int64_t classes, const WorldLayout& world = {});
// The plan with its length set to `epochs` (time= recomputes it after each epoch): the schedule's
// updates follow; the optimizer, its LR and the warmup stay as chosen at the start.
TrainingPlan with_epochs(TrainingPlan plan, int64_t epochs);
// The learning-rate and momentum schedule of the plan's updates.
ScheduleOptions schedule_options(const ScheduleSettings& schedule, const OptimizerSettings& optimizer,
                                 const TrainingPlan& plan);
// The schedule's kind, its step (update or epoch) and timm's warmup start, for `trainer plan`.
std::string schedule_text(const ScheduleSettings& schedule);
// Updates the 0-based `epoch` runs: updates_per_epoch, fewer in the last epoch of an `updates=` run.
int64_t epoch_updates(const TrainingPlan& plan, int64_t epoch);
std::string amp_text(const TrainingPlan& plan);
std::vector<std::pair<std::string, std::string>> plan_rows(const TrainingPlan& plan);

}  // namespace trainer
