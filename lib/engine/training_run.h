// One Trainer::fit (engine/trainer.h): the run's machinery (execution mode, optimizer, scaler,
// EMA, executor, update step, loader) built in order, and the loop as a few named steps: train an
// epoch (micro-batches, their updates, the ranks' stops between updates), end the epoch
// (checkpoints), and the results rows: at epoch ends, or every val_interval updates, each one
// validating when due and weighing best fitness and patience.
#pragma once
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/settings.h"
#include "data/loader.h"
#include "dist/collective.h"
#include "dist/epoch_shard.h"
#include "dist/sync_batch_norm_scope.h"
#include "engine/execution_config.h"
#include "engine/loop_state.h"
#include "engine/step_execution.h"
#include "engine/task.h"
#include "engine/training_components.h"
#include "engine/training_observer.h"
#include "engine/training_plan.h"
#include "engine/training_summary.h"
#include "engine/update_step.h"
#include "io/checkpoint.h"
#include "io/run_folder.h"

namespace trainer {

// Where a run sends what it does, and when it should stop (Trainer's set_stop_check).
struct RunHooks {
  std::vector<TrainingObserver*> observers;
  std::function<int()> stop_check;
};

class TrainingRun {
 public:
  TrainingRun(const Settings& settings, Task& task, const TrainingPlan& plan, RunFolder folder, Collective& collective,
              RunHooks hooks, const std::optional<Checkpoint>& resume, const StepExecution& execution);
  TrainingSummary fit();

 private:
  using Clock = std::chrono::steady_clock;
  // What the progress report and the results rows need of the time and the LR.
  struct RunClock {
    Clock::time_point epoch_start = Clock::now();
    Clock::time_point row_start = Clock::now();  // the previous results row
    Clock::time_point last_read = Clock::now();
    double lr = 0;  // of the latest update
  };

  void restore(const Checkpoint& checkpoint);
  void train_epoch();
  // The slot after the epoch's last micro-batch: the shard's end, or the group of the run's last update.
  int64_t epoch_end_slot(const EpochShard& shard) const;
  // One micro-batch, the update when it ends its group, then the steps between updates.
  void run_micro_batch(const EpochShard& shard);
  // Between updates (after every micro-batch in one process): the ranks vote on stopping and on
  // reading statistics back, val_interval's results row, save_interval's last.pt, and the stop itself.
  void between_updates(const EpochShard& shard, int64_t group, bool group_done);
  // This rank's vote on stopping: the signal that asked for it, 0 for none.
  double stop_wish() const;
  // The update's place in the whole run's schedule.
  int64_t schedule_step(const EpochShard& shard, int64_t group) const;
  // Reads the executor's statistics back (the loop's one sync point), sums them over ranks and reports progress.
  void fold_statistics(int64_t updates_in_epoch);
  // The results row due now: the statistics since the previous row, validation when `validate_now`,
  // best fitness and patience; the statistics start again.
  EpochRecord take_record(bool validate_now);
  void validate(EpochRecord& record);
  void end_epoch();
  // time=: whether this rank's clock finds the budget spent (rank 0's decides for all).
  bool budget_spent() const;
  // time=: the epoch ends at the update just made, the run's last (a partial epoch stays where it stopped).
  void stop_epoch_here(const EpochShard& shard);
  // time=: the run's epochs from the mean epoch time after `finished` epochs, with the schedule,
  // the task's planned epochs (close_mosaic), the loader and the recorded recipe following them.
  void fit_epochs_to_budget(int64_t finished);
  // The training split's loader, its collate made for the task's planned epochs.
  std::unique_ptr<Loader> training_loader() const;
  // last.pt at the epoch's `micro_batch` (best.pt when `record` is better, epoch<N>.pt at
  // save_period's epoch ends), then the observers of `record` (null: no row here).
  void save_and_report(int64_t epoch, int64_t micro_batch, const EpochRecord* record);
  // The state a checkpoint resumes from at the epoch's `micro_batch` (counted over all ranks).
  Checkpoint checkpoint(int64_t epoch, int64_t micro_batch, bool with_gradients) const;

  Clock::time_point start_ = Clock::now();
  Clock::time_point train_start_ = Clock::now();  // time='s clock: from the first update of this process
  int64_t first_epoch_ = 0;                       // the epoch this process started in (time= times its own)
  bool budget_stop_ = false;                      // time=: an update spent the budget
  const Settings& settings_;
  Task& task_;
  TrainingPlan plan_;  // time= recomputes its length after each epoch
  RunFolder folder_;
  Collective& collective_;
  RunHooks hooks_;
  torch::nn::Module& model_;
  std::unique_ptr<SyncBatchNormScope> sync_batch_norm_;
  ExecutionConfig execution_;
  TrainingComponents components_;
  LoopState state_;
  RunClock clock_;
  TrainingSummary summary_;
  int64_t epoch_end_ = 0;       // epoch_end_slot of the epoch in hand
  int64_t stop_position_ = 0;   // where in the epoch an updates= run stops; 0: at its end
  bool patience_stop_ = false;  // a results row found no improvement for `patience` validations
  std::unique_ptr<StepExecutor> executor_;
  std::unique_ptr<UpdateStep> update_step_;
  std::unique_ptr<Loader> loader_;
  std::string recipe_;
};

}  // namespace trainer
