#include "run/smoke.h"

#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>

#include "compile/compiled_execution.h"
#include "engine/eager_executor.h"
#include "engine/trainer.h"
#include "io/checkpoint.h"
#include "io/run_folder.h"
#include "io/state_dict.h"
#include "optim/param_groups.h"
#include "tasks/smoke_task.h"

namespace trainer {
namespace {

constexpr int64_t kEpochs = 5;
constexpr int64_t kUpdatesPerEpoch = 10;

class EpochLosses : public TrainingObserver {
 public:
  void on_epoch_end(const EpochRecord& record) override { losses.push_back(record.losses.at(0)); }
  std::vector<double> losses;
};

torch::Tensor flat_gradients(const std::vector<torch::Tensor>& parameters) {
  std::vector<torch::Tensor> grads;
  for (const auto& parameter : parameters) grads.push_back(parameter.grad().detach().flatten().clone());
  return torch::cat(grads);
}

// Gradient of one group through the engine's micro-step: `micro_batches` micro-batches of
// `micro_batch` samples, each loss divided by `normaliser` samples.
torch::Tensor group_gradient(const Settings& settings, const TrainingPlan& plan, int64_t micro_batch,
                             int64_t micro_batches, int64_t normaliser) {
  SmokeTask task(micro_batch * micro_batches, static_cast<uint64_t>(settings.run.seed));
  task.model().to(plan.device);
  FusedOptimizerOptions options;
  options.kind = plan.optimizer;
  FusedOptimizer optimizer(make_param_groups(task.model(), plan.lr, 0.0), options);
  LossScaler scaler(false, plan.device);
  StepConfig config;
  config.device = plan.device;
  config.amp_dtype = plan.amp_dtype;
  EagerExecutor executor(task, optimizer, scaler, nullptr, config);
  for (int64_t m = 0; m < micro_batches; ++m) {
    std::vector<size_t> indices;
    for (int64_t i = 0; i < micro_batch; ++i) indices.push_back(static_cast<size_t>(m * micro_batch + i));
    Batch batch = task.batch_of(indices);
    batch.input = batch.input.to(plan.device);
    batch.target = batch.target.to(plan.device);
    executor.micro_step(batch, normaliser);
  }
  return flat_gradients(executor.parameters()).cpu();
}


}  // namespace

SmokeReport run_smoke(const Settings& recipe) {
  Settings settings = recipe;
  settings.schedule.epochs = kEpochs;
  settings.output.val = true;
  settings.run.pretrained.clear();
  const TrainingPlan geometry = make_plan(settings, 1, 1, SmokeTask(1, 0).classes());
  const int64_t samples = geometry.micro_batch * geometry.accumulate * kUpdatesPerEpoch;
  settings.schedule.warmup_updates = kUpdatesPerEpoch;

  SmokeReport report;
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / fmt::format("trainer-smoke-{}", ::getpid());
  std::filesystem::create_directories(RunFolder{folder}.weights());
  SmokeTask task(samples, static_cast<uint64_t>(settings.run.seed));
  Trainer trainer(settings, task, folder);
  trainer.set_step_execution(compiled_execution());
  EpochLosses losses;
  trainer.add_observer(losses);
  const TrainingSummary summary = trainer.fit();
  report.updates = summary.updates;
  report.first_epoch_loss = losses.losses.front();
  report.last_epoch_loss = losses.losses.back();
  if (!(report.last_epoch_loss < report.first_epoch_loss)) {
    report.failures.push_back(fmt::format("the loss did not go down ({:.4f} in epoch 1, {:.4f} in epoch {})",
                                          report.first_epoch_loss, report.last_epoch_loss, kEpochs));
  }

  const TrainingPlan& plan = trainer.plan();
  const int64_t group = plan.micro_batch * plan.accumulate;
  const torch::Tensor accumulated = group_gradient(settings, plan, plan.micro_batch, plan.accumulate, group);
  const torch::Tensor big_batch = group_gradient(settings, plan, group, 1, group);
  const torch::Tensor unnormalised = group_gradient(settings, plan, plan.micro_batch, plan.accumulate, plan.micro_batch);
  report.gradient_relative_error =
      ((accumulated - big_batch).norm() / big_batch.norm().clamp_min(1e-12)).item<double>();
  // Without the 1/N normalisation each micro-batch would contribute its full mean-loss gradient.
  report.accumulated_to_sum_ratio = (accumulated.norm() / unnormalised.norm().clamp_min(1e-12)).item<double>();
  const double tolerance = plan.amp_dtype ? 2e-2 : 1e-5;
  if (!(report.gradient_relative_error <= tolerance)) {
    report.failures.push_back(fmt::format("accumulated gradient differs from the big-batch gradient by {:.3g} "
                                          "(relative, tolerance {:.0e})",
                                          report.gradient_relative_error, tolerance));
  }

  const Checkpoint saved = load_checkpoint(summary.last_weights);
  report.checkpoint_round_trip = identical(saved.model, state_dict(task.model()));
  if (!report.checkpoint_round_trip) {
    report.failures.push_back("the saved checkpoint does not hold the trained weights");
  }
  std::error_code ignored;
  std::filesystem::remove_all(folder, ignored);
  return report;
}

}  // namespace trainer
