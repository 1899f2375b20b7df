// The training loop (R7–R16): update-step granularity throughout, device-side statistics read
// back a few times a second, validation with EMA weights, checkpoints each epoch.
#pragma once
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <vector>

#include "config/settings.h"
#include "dist/collective.h"
#include "engine/step_execution.h"
#include "engine/step_executor.h"
#include "engine/task.h"
#include "engine/training_observer.h"
#include "engine/training_plan.h"
#include "engine/training_summary.h"
#include "io/checkpoint.h"

namespace trainer {

class Trainer {
 public:
  // run_folder empty: no files written (smoke runs, tests, and every rank but 0). With a
  // distributed `collective` this process is one rank of a data-parallel job (R17).
  Trainer(const Settings& settings, Task& task, std::filesystem::path run_folder = {},
          Collective& collective = single_process());
  void add_observer(TrainingObserver& observer) { observers_.push_back(&observer); }
  // Returns the signal that asks to stop (any non-zero value), 0 to go on. Polled after every
  // micro-batch in one process, after every update with several ranks (they must stop together,
  // so they vote); the run then saves last.pt (with the gradients of an unfinished accumulation
  // group) and throws TrainingInterrupted.
  void set_stop_check(std::function<int()> stop_check) { stop_check_ = std::move(stop_check); }
  // Continue exactly where `checkpoint` (written by a run of the same recipe) stopped.
  void resume_from(Checkpoint checkpoint) { resume_ = std::move(checkpoint); }
  // How the steps execute: eager_execution() unless given compile/'s compiled_execution(), which
  // the command line gives every run (it must outlive fit()).
  void set_step_execution(const StepExecution& execution) { execution_ = &execution; }
  const TrainingPlan& plan() const { return plan_; }
  TrainingSummary fit();

 private:
  Settings settings_;
  Task& task_;
  std::filesystem::path run_folder_;
  Collective& collective_;
  TrainingPlan plan_;
  std::vector<TrainingObserver*> observers_;
  std::function<int()> stop_check_;
  std::optional<Checkpoint> resume_;
  const StepExecution* execution_ = &eager_execution();
};

// Applies process-wide settings a run needs before any model is built: intra-op threads (LibTorch
// defaults to 1 here; threads=0 shares the cores among the machine's ranks) and determinism.
void configure_runtime(const RunSettings& run, const WorldLayout& world = {});
// The plan of training `task` with `settings` on `world` (what the loop follows and `trainer
// plan` prints).
TrainingPlan plan_for(const Settings& settings, Task& task, const WorldLayout& world = {});

}  // namespace trainer
