#include "engine/trainer.h"

#include "engine/training_run.h"

namespace trainer {

void configure_runtime(const RunSettings& run, const WorldLayout& world) {
  at::set_num_threads(static_cast<int>(resolve_threads(run.threads, world)));
  at::globalContext().setDeterministicCuDNN(run.deterministic);
  at::globalContext().setBenchmarkCuDNN(!run.deterministic);
}

Trainer::Trainer(const Settings& settings, Task& task, std::filesystem::path run_folder, Collective& collective)
    : settings_(settings),
      task_(task),
      run_folder_(std::move(run_folder)),
      collective_(collective),
      plan_(plan_for(settings, task, collective.layout())) {
  task_.training().set_planned_epochs(plan_.epochs);
}

TrainingPlan plan_for(const Settings& settings, Task& task, const WorldLayout& world) {
  const TaskTraining& training = task.training();
  const auto batches = training.epoch_batches(static_cast<uint64_t>(settings.run.seed), 0, settings.schedule.batch);
  return make_plan(settings, static_cast<int64_t>(training.train_indices().size()), static_cast<int64_t>(batches.size()),
                   task.classes(), world);
}

TrainingSummary Trainer::fit() {
  TrainingRun run(settings_, task_, plan_, RunFolder{run_folder_}, collective_, {observers_, stop_check_}, resume_,
                  *execution_);
  return run.fit();
}

}  // namespace trainer
