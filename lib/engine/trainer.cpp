#include "engine/trainer.h"

#include <chrono>
#include <cmath>

#include "config/recipe.h"
#include "data/sampler.h"
#include "engine/fused_optimizer.h"
#include "engine/loss_scaler.h"
#include "engine/model_ema.h"
#include "engine/param_groups.h"
#include "engine/schedule.h"
#include "engine/step_executor.h"
#include "io/checkpoint.h"
#include "io/state_dict.h"
#include "models/resnet.h"
#include "util/error.h"
#include "util/memory.h"

namespace trainer {
namespace {

using Clock = std::chrono::steady_clock;
// Statistics are copied to the host at most this often: the one sync point of the loop.
constexpr double kReadBackSeconds = 0.5;
// BatchNorm statistics over fewer samples than this are noisy (R14).
constexpr int64_t kSmallBatchNormBatch = 8;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

ScheduleOptions schedule_options(const Settings& settings, const TrainingPlan& plan) {
  ScheduleOptions options;
  options.kind = settings.scheduler;
  options.lr0 = plan.lr;
  options.lrf = settings.lrf;
  options.total_updates = plan.total_updates;
  options.warmup_updates = plan.warmup_updates;
  options.warmup_bias_lr = settings.warmup_bias_lr;
  options.momentum = settings.momentum;
  options.warmup_momentum = settings.warmup_momentum;
  return options;
}

// Host-side sums of read-back statistics over one epoch.
struct EpochTotals {
  std::vector<double> loss_sums;
  double grad_norm_sum = 0;
  int64_t samples = 0;
  int64_t updates = 0;
  int64_t skipped = 0;

  void add(const StepStats& stats) {
    if (loss_sums.empty()) loss_sums.assign(stats.losses.size(), 0.0);
    for (size_t i = 0; i < stats.losses.size(); ++i) loss_sums[i] += stats.losses[i] * static_cast<double>(stats.samples);
    grad_norm_sum += stats.grad_norm * static_cast<double>(stats.updates);
    samples += stats.samples;
    updates += stats.updates;
    skipped += stats.skipped_updates;
  }
  std::vector<double> mean_losses() const {
    std::vector<double> means;
    for (double sum : loss_sums) means.push_back(sum / static_cast<double>(std::max<int64_t>(samples, 1)));
    return means;
  }
};

}  // namespace

void configure_runtime(const Settings& settings) {
  at::set_num_threads(static_cast<int>(resolve_threads(settings.threads)));
  at::globalContext().setDeterministicCuDNN(settings.deterministic);
  at::globalContext().setBenchmarkCuDNN(!settings.deterministic);
}

Trainer::Trainer(const Settings& settings, Task& task, std::filesystem::path run_folder)
    : settings_(settings),
      task_(task),
      run_folder_(std::move(run_folder)),
      plan_(make_plan(settings, static_cast<int64_t>(task.train_indices().size()), task.classes())) {}

TrainingSummary Trainer::fit() {
  const auto run_start = Clock::now();
  torch::nn::Module& model = task_.model();
  model.to(plan_.device);
  model.train();
  if (settings_.norm == NormKind::batch && has_batch_norm(model) && plan_.micro_batch < kSmallBatchNormBatch) {
    spdlog::warn("BatchNorm sees micro-batches of {} samples: its statistics do not accumulate, so batch {} x "
                 "accumulate {} is not a batch of {}; consider norm=gn or norm=frozen_bn",
                 plan_.micro_batch, plan_.micro_batch, plan_.accumulate, plan_.effective_batch);
  }
  if (plan_.compile != CompileMode::none) {
    spdlog::warn("compile={} is recorded, but this build runs the eager executor (graph capture is not "
                 "implemented yet)", to_string(plan_.compile));
  }

  FusedOptimizerOptions optimizer_options;
  optimizer_options.kind = plan_.optimizer;
  optimizer_options.momentum = settings_.momentum;
  FusedOptimizer optimizer(make_param_groups(model, plan_.lr, plan_.weight_decay), optimizer_options);
  LossScaler scaler(plan_.loss_scaling, plan_.device);
  std::unique_ptr<ModelEma> ema;
  if (settings_.ema) ema = std::make_unique<ModelEma>(model, settings_.ema_decay, settings_.ema_tau);
  StepExecutor executor(task_, optimizer, scaler, ema.get(), {plan_.device, plan_.amp_dtype, settings_.grad_clip});
  const ScheduleOptions schedule = schedule_options(settings_, plan_);
  Loader loader(task_.train_collate(static_cast<uint64_t>(settings_.seed)), settings_.workers, settings_.prefetch);

  for (auto* observer : observers_) observer->on_start(plan_, task_.loss_names(), task_.metric_names());

  TrainingSummary summary;
  summary.best_fitness = -1;
  int64_t global_update = 0;
  int64_t epochs_without_improvement = 0;
  const std::string recipe = to_yaml(settings_);

  for (int64_t epoch = 0; epoch < plan_.epochs; ++epoch) {
    const auto epoch_start = Clock::now();
    const auto order = epoch_order(task_.train_indices(), static_cast<uint64_t>(settings_.seed), epoch, true);
    loader.start_epoch(make_batches(order, plan_.micro_batch, false), epoch);
    EpochTotals totals;
    auto last_read = Clock::now();
    double lr = 0;

    for (int64_t update = 0; update < plan_.updates_per_epoch; ++update) {
      const ScheduleValues values = schedule_at(schedule, global_update);
      optimizer.set_lr(kWeightGroup, values.lr);
      optimizer.set_lr(kNormGroup, values.lr);
      optimizer.set_lr(kBiasGroup, values.bias_lr);
      // Ultralytics warms up SGD momentum only; AdamW's beta1 stays fixed.
      if (plan_.optimizer == OptimizerKind::sgd) optimizer.set_momentum(values.momentum);
      lr = values.lr;

      const int64_t group_samples = plan_.group_samples(update);
      for (int64_t m = 0; m < plan_.group_size(update); ++m) {
        std::optional<Batch> batch = loader.next();
        TORCH_INTERNAL_ASSERT(batch, "loader ended before the planned micro-batches");
        batch->input = batch->input.to(plan_.device, true);
        batch->target = batch->target.to(plan_.device, true);
        executor.micro_step(*batch, group_samples);
      }
      executor.update();
      ++global_update;

      const bool last = update + 1 == plan_.updates_per_epoch;
      if (last || seconds_since(last_read) >= kReadBackSeconds) {
        last_read = Clock::now();
        const StepStats stats = executor.read_stats();
        totals.add(stats);
        if (!plan_.loss_scaling && stats.skipped_updates > 0) {
          throw UserError("non-finite loss or gradients in epoch " + std::to_string(epoch + 1) + " (" +
                          std::to_string(stats.skipped_updates) + " update(s) skipped); lower lr0, enable "
                          "grad_clip or check the data. Saved checkpoints are unchanged");
        }
        if (plan_.loss_scaling && stats.loss_scale < 1e-4) {
          throw UserError("the fp16 loss scale collapsed to " + std::to_string(stats.loss_scale) +
                          ": the loss is non-finite at every scale; lower lr0 or use amp=bf16");
        }
        ProgressInfo info;
        info.epoch = epoch + 1;
        info.epochs = plan_.epochs;
        info.update = update + 1;
        info.updates_per_epoch = plan_.updates_per_epoch;
        info.losses = stats.losses;
        info.lr = lr;
        info.grad_norm = stats.grad_norm;
        info.elapsed_seconds = seconds_since(epoch_start);
        info.images_per_second = static_cast<double>(totals.samples) / std::max(info.elapsed_seconds, 1e-9);
        info.updates_per_second = static_cast<double>(update + 1) / std::max(info.elapsed_seconds, 1e-9);
        info.memory_mb = peak_memory_mb(plan_.device);
        info.eta_seconds = info.elapsed_seconds / static_cast<double>(update + 1) *
                           static_cast<double>(plan_.updates_per_epoch - update - 1);
        for (auto* observer : observers_) observer->on_progress(info);
      }
    }
    TORCH_INTERNAL_ASSERT(!loader.next(), "loader has micro-batches beyond the plan");

    EpochRecord record;
    record.epoch = epoch + 1;
    record.seconds = seconds_since(epoch_start);
    record.losses = totals.mean_losses();
    record.lr = lr;
    record.grad_norm = totals.grad_norm_sum / static_cast<double>(std::max<int64_t>(totals.updates, 1));
    record.skipped_updates = totals.skipped;
    record.images_per_second = static_cast<double>(totals.samples) / std::max(record.seconds, 1e-9);

    if (settings_.val || epoch + 1 == plan_.epochs) {
      for (auto* observer : observers_) observer->on_validation_start(epoch + 1);
      if (ema) ema->swap(model);
      const Metrics metrics = task_.validate(plan_.device);
      if (ema) ema->swap(model);
      record.metrics = metrics.values;
      record.fitness = metrics.fitness;
    }
    record.peak_memory_mb = peak_memory_mb(plan_.device);
    record.best = record.fitness > summary.best_fitness;
    if (record.best) {
      summary.best_fitness = record.fitness;
      summary.best_epoch = epoch + 1;
      epochs_without_improvement = 0;
    } else {
      ++epochs_without_improvement;
    }

    if (!run_folder_.empty()) {
      Checkpoint checkpoint;
      checkpoint.task = task_.name();
      checkpoint.model = state_dict(model);
      if (ema) {
        ema->swap(model);
        checkpoint.ema = state_dict(model);
        ema->swap(model);
      }
      checkpoint.optimizer = optimizer.state();
      checkpoint.scaler = scaler.state();
      checkpoint.epoch = epoch + 1;
      checkpoint.updates = global_update;
      checkpoint.best_fitness = summary.best_fitness;
      checkpoint.recipe = recipe;
      summary.last_weights = run_folder_ / "weights" / "last.pt";
      save_checkpoint(summary.last_weights, checkpoint);
      if (record.best) {
        summary.best_weights = run_folder_ / "weights" / "best.pt";
        save_checkpoint(summary.best_weights, checkpoint);
      }
      if (settings_.save_period > 0 && (epoch + 1) % settings_.save_period == 0) {
        save_checkpoint(run_folder_ / "weights" / ("epoch" + std::to_string(epoch + 1) + ".pt"), checkpoint);
      }
    }
    for (auto* observer : observers_) observer->on_epoch_end(record);
    summary.epochs_run = epoch + 1;
    summary.last_metrics = record.metrics;
    if (epochs_without_improvement >= settings_.patience) {
      spdlog::info("stopping early: no improvement for {} epochs (patience), best epoch {}", settings_.patience,
                   summary.best_epoch);
      break;
    }
  }
  summary.updates = global_update;
  summary.seconds = seconds_since(run_start);
  return summary;
}

}  // namespace trainer
