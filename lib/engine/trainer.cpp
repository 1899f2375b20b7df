#include "engine/trainer.h"

#include <chrono>
#include <cmath>
#include <mutex>

#include "config/recipe.h"
#include "data/sampler.h"
#include "dist/epoch_shard.h"
#include "dist/module_sync.h"
#include "dist/sync_batch_norm_scope.h"
#include "engine/autotune.h"
#include "engine/execution_config.h"
#include "engine/generator_state.h"
#include "engine/param_groups.h"
#include "engine/schedule.h"
#include "engine/step_executor.h"
#include "engine/training_components.h"
#include "io/checkpoint.h"
#include "io/state_dict.h"
#include "models/trainable.h"
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
  options.kind = settings.schedule.scheduler;
  options.lr0 = plan.lr;
  options.lrf = settings.schedule.lrf;
  options.total_updates = plan.total_updates;
  options.warmup_updates = plan.warmup_updates;
  options.warmup_bias_lr = settings.schedule.warmup_bias_lr;
  options.momentum = settings.optim.momentum;
  options.warmup_momentum = settings.schedule.warmup_momentum;
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
    if (loss_sums.empty()) loss_sums.assign(stats.loss_sums.size(), 0.0);
    for (size_t i = 0; i < stats.loss_sums.size(); ++i) loss_sums[i] += stats.loss_sums[i];
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

// Everything the loop advances: what a checkpoint carries so that a resumed run continues
// bit for bit.
struct LoopState {
  int64_t epoch = 0;        // current epoch, 0-based (= completed epochs)
  int64_t micro_batch = 0;  // micro-batches this rank has done in the epoch's shard
  int64_t anchor = 0;       // where the epoch's shard starts (dist/epoch_shard.h)
  int64_t updates = 0;      // optimizer updates so far
  double best_fitness = -1;
  int64_t best_epoch = 0;
  int64_t stale_epochs = 0; // epochs since the best one (patience)
  EpochTotals totals;
};

torch::Tensor scalar(double value) { return torch::scalar_tensor(value, torch::kDouble); }

NamedTensors progress_tensors(const LoopState& state, int64_t world_size) {
  const EpochTotals& t = state.totals;
  return {{"world_size", scalar(static_cast<double>(world_size))},
          {"epoch_anchor", scalar(static_cast<double>(state.anchor))},
          {"best_epoch", scalar(static_cast<double>(state.best_epoch))},
          {"stale_epochs", scalar(static_cast<double>(state.stale_epochs))},
          {"epoch_samples", scalar(static_cast<double>(t.samples))},
          {"epoch_updates", scalar(static_cast<double>(t.updates))},
          {"epoch_skipped", scalar(static_cast<double>(t.skipped))},
          {"epoch_grad_norm_sum", scalar(t.grad_norm_sum)},
          {"epoch_loss_sums", torch::tensor(t.loss_sums, torch::kDouble)}};
}

// `world` continues where the checkpoint's run stopped, whatever its world size was.
LoopState restore_loop_state(const Checkpoint& checkpoint, const WorldLayout& world) {
  const auto progress = to_map(checkpoint.progress);
  const auto value = [&](const std::string& key) {
    const auto found = progress.find(key);
    if (found == progress.end()) throw UserError("checkpoint progress has no '" + key + "'; cannot resume");
    return found->second;
  };
  // Checkpoints from before distributed training are one-process runs.
  const auto value_or = [&](const std::string& key, double fallback) {
    const auto found = progress.find(key);
    return found == progress.end() ? fallback : found->second.item<double>();
  };
  LoopState state;
  state.epoch = checkpoint.epoch;
  const ShardStart start = resume_start(checkpoint.micro_batch, static_cast<int64_t>(value_or("epoch_anchor", 0)),
                                        static_cast<int64_t>(value_or("world_size", 1)), world.world_size,
                                        !checkpoint.grads.empty());
  state.anchor = start.anchor;
  state.micro_batch = start.slot;
  state.updates = checkpoint.updates;
  state.best_fitness = checkpoint.best_fitness;
  state.best_epoch = static_cast<int64_t>(value("best_epoch").item<double>());
  state.stale_epochs = static_cast<int64_t>(value("stale_epochs").item<double>());
  state.totals.samples = static_cast<int64_t>(value("epoch_samples").item<double>());
  state.totals.updates = static_cast<int64_t>(value("epoch_updates").item<double>());
  state.totals.skipped = static_cast<int64_t>(value("epoch_skipped").item<double>());
  state.totals.grad_norm_sum = value("epoch_grad_norm_sum").item<double>();
  const torch::Tensor sums = value("epoch_loss_sums").to(torch::kDouble).contiguous();
  state.totals.loss_sums.assign(sums.data_ptr<double>(), sums.data_ptr<double>() + sums.numel());
  return state;
}

NamedTensors accumulated_gradients(torch::nn::Module& model) {
  NamedTensors grads;
  for (const auto& item : model.named_parameters()) {
    if (item.value().grad().defined()) grads.emplace_back(item.key(), item.value().grad().detach().clone());
  }
  return grads;
}

void restore_gradients(torch::nn::Module& model, const NamedTensors& grads) {
  const auto by_name = to_map(grads);
  torch::NoGradGuard no_grad;
  for (const auto& item : model.named_parameters()) {
    const auto found = by_name.find(item.key());
    if (found == by_name.end()) continue;
    torch::Tensor& grad = item.value().mutable_grad();
    if (grad.defined()) {
      grad.copy_(found->second);
    } else {
      // In the parameter's layout (channels-last or not), as backward would have made it.
      grad = torch::empty_like(item.value());
      grad.copy_(found->second);
    }
  }
}

// Loss sums and sample counts are each rank's own; everything else read back derives from the
// all-reduced gradients and is the same on every rank.
void sum_over_ranks(StepStats& stats, Collective& collective) {
  std::vector<double> values = stats.loss_sums;
  values.push_back(static_cast<double>(stats.samples));
  values = collective.all_reduce(values, Reduction::sum);
  stats.samples = static_cast<int64_t>(values.back());
  values.pop_back();
  stats.loss_sums = values;
}

// What the compile mode resolves to for this run (measured, for max-autotune), with its process-wide
// switches set and the model in its memory layout.
ExecutionConfig prepare_execution(const Settings& settings, const TrainingPlan& plan, Task& task,
                                  Collective& collective) {
  torch::nn::Module& model = task.model();
  const ResolvedExecution resolved =
      resolve_execution(plan.compile, plan.device, plan.amp_dtype.has_value(), is_convolutional(model));
  if (!resolved.unavailable.empty()) {
    spdlog::log(resolved.unavailable_changes_run ? spdlog::level::warn : spdlog::level::info, "{}",
                resolved.unavailable);
  }
  ExecutionConfig chosen = resolved.candidates.empty()
                               ? resolved.config
                               : autotune_execution(task, settings, plan, resolved.candidates, collective);
  if (chosen.graphs && settings.run.norm == NormKind::sync_batch && collective.distributed()) {
    spdlog::warn("norm=syncbn all-reduces inside the forward pass, which is not captured in CUDA graphs here; "
                 "the steps run eagerly");
    chosen.graphs = false;
  }
  enable_global_switches(chosen);
  apply_memory_format(model, chosen.channels_last);
  if (plan.compile != CompileMode::none) spdlog::info("compile={}: {}", to_string(plan.compile), chosen.describe());
  return chosen;
}

}  // namespace

void configure_runtime(const Settings& settings, const WorldLayout& world) {
  at::set_num_threads(static_cast<int>(resolve_threads(settings.run.threads, world)));
  at::globalContext().setDeterministicCuDNN(settings.run.deterministic);
  at::globalContext().setBenchmarkCuDNN(!settings.run.deterministic);
}

Trainer::Trainer(const Settings& settings, Task& task, std::filesystem::path run_folder, Collective& collective)
    : settings_(settings),
      task_(task),
      run_folder_(std::move(run_folder)),
      collective_(collective),
      plan_(plan_for(settings, task, collective.layout())) {}

TrainingPlan plan_for(const Settings& settings, const Task& task, const WorldLayout& world) {
  const auto batches = task.epoch_batches(static_cast<uint64_t>(settings.run.seed), 0, settings.schedule.batch);
  return make_plan(settings, static_cast<int64_t>(task.train_indices().size()), static_cast<int64_t>(batches.size()),
                   task.classes(), world);
}

TrainingSummary Trainer::fit() {
  const auto run_start = Clock::now();
  const WorldLayout& world = collective_.layout();
  torch::nn::Module& model = task_.model();
  model.to(plan_.device);
  model.train();
  broadcast_parameters_and_buffers(model, collective_);
  const SyncBatchNormScope sync_batch_norm(model, collective_);
  if (settings_.run.norm == NormKind::batch && has_batch_norm(model) && plan_.micro_batch < kSmallBatchNormBatch) {
    spdlog::warn("BatchNorm sees micro-batches of {} samples: its statistics do not accumulate, so batch {} x "
                 "accumulate {} is not a batch of {}; consider norm=gn or norm=frozen_bn{}",
                 plan_.micro_batch, plan_.micro_batch, plan_.accumulate, plan_.effective_batch,
                 plan_.world_size > 1 ? ", or norm=syncbn (statistics over all ranks' micro-batches)" : "");
  }
  // Before the optimizer allocates its buffers in the parameters' layout.
  const ExecutionConfig execution = prepare_execution(settings_, plan_, task_, collective_);

  TrainingComponents components = build_training_components(settings_, plan_, model);
  FusedOptimizer& optimizer = *components.optimizer;
  LossScaler& scaler = *components.scaler;
  const std::unique_ptr<ModelEma>& ema = components.ema;

  LoopState state;
  if (resume_) {
    load_state_dict(model, to_map(resume_->model), true);
    if (ema) {
      auto ema_state = to_map(resume_->ema);
      ema_state["updates"] = torch::scalar_tensor(resume_->updates, torch::kLong);
      ema->load_state(ema_state);
    }
    optimizer.load_state(to_map(resume_->optimizer));
    scaler.load_state(to_map(resume_->scaler));
    restore_gradients(model, resume_->grads);
    restore_generators(resume_->rng);
    state = restore_loop_state(*resume_, world);
    spdlog::info("resuming at epoch {}, micro-batch {} of the epoch's {}, update {}", state.epoch + 1,
                 resume_->micro_batch, plan_.epoch_micro_batches, state.updates);
  }

  // After every weight is in place (R5): a graph executor captures the tensors as they are now.
  const std::unique_ptr<StepExecutor> executor =
      make_step_executor(task_, optimizer, scaler, ema.get(),
                         {plan_.device, plan_.amp_dtype, settings_.optim.grad_clip, execution, settings_.execution.compile_cache_limit,
                          plan_.micro_batch},
                         collective_);
  const ScheduleOptions schedule = schedule_options(settings_, plan_);
  Loader loader(task_.train_collate(static_cast<uint64_t>(settings_.run.seed)), settings_.data.workers, settings_.data.prefetch);
  const std::string recipe = to_yaml(settings_);
  const std::filesystem::path last_path = run_folder_.empty() ? std::filesystem::path() : run_folder_ / "weights" / "last.pt";

  // `epoch`/`micro_batch`: the position the checkpoint resumes at, counted in the epoch's
  // micro-batches of all ranks, so that any world size can continue it.
  const auto make_checkpoint = [&](int64_t epoch, int64_t micro_batch, bool with_gradients) {
    Checkpoint checkpoint;
    checkpoint.task = task_.name();
    checkpoint.model = state_dict(model);
    if (ema) {
      for (auto& [name, tensor] : ema->state()) {
        if (name != "updates") checkpoint.ema.emplace_back(name, tensor);
      }
    }
    checkpoint.optimizer = optimizer.state();
    checkpoint.scaler = scaler.state();
    if (with_gradients) checkpoint.grads = accumulated_gradients(model);
    checkpoint.rng = generator_states();
    checkpoint.progress = progress_tensors(state, plan_.world_size);
    checkpoint.epoch = epoch;
    checkpoint.micro_batch = micro_batch;
    checkpoint.updates = state.updates;
    checkpoint.best_fitness = state.best_fitness;
    checkpoint.recipe = recipe;
    return checkpoint;
  };
  const auto fold_statistics = [&](int64_t epoch, int64_t update, Clock::time_point epoch_start, double lr) {
    StepStats stats = executor->read_stats();
    sum_over_ranks(stats, collective_);
    state.totals.add(stats);
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
    info.update = update;
    info.updates_per_epoch = plan_.updates_per_epoch;
    info.losses = stats.mean_losses();
    info.lr = lr;
    info.grad_norm = stats.grad_norm;
    info.elapsed_seconds = seconds_since(epoch_start);
    info.images_per_second = static_cast<double>(state.totals.samples) / std::max(info.elapsed_seconds, 1e-9);
    info.updates_per_second = static_cast<double>(state.totals.updates) / std::max(info.elapsed_seconds, 1e-9);
    info.memory_mb = peak_memory_mb(plan_.device);
    info.eta_seconds = info.elapsed_seconds / static_cast<double>(std::max<int64_t>(state.totals.updates, 1)) *
                       static_cast<double>(plan_.updates_per_epoch - update);
    for (auto* observer : observers_) observer->on_progress(info);
  };

  for (auto* observer : observers_) observer->on_start(plan_, task_.loss_names(), task_.metric_names());

  TrainingSummary summary;
  for (; state.epoch < plan_.epochs; ++state.epoch) {
    const int64_t epoch = state.epoch;
    const auto epoch_start = Clock::now();
    const auto batches = task_.epoch_batches(static_cast<uint64_t>(settings_.run.seed), epoch, plan_.micro_batch);
    TORCH_INTERNAL_ASSERT(static_cast<int64_t>(batches.size()) == plan_.epoch_micro_batches,
                          "the task's batch count changed between epochs");
    const EpochShard shard(batches, state.anchor, plan_.accumulate, world);
    loader.start_epoch(shard.rank_batches(), epoch, static_cast<size_t>(state.micro_batch));
    auto last_read = Clock::now();
    // The schedule follows an update's place in the plan, not the count of updates done, so a run
    // resumed with another world size continues the curve where it was.
    const auto schedule_step = [&](int64_t group) {
      return epoch * plan_.updates_per_epoch + shard.first_update() + group;
    };
    double lr = schedule_at(schedule, schedule_step(shard.group_of(state.micro_batch))).lr;

    while (state.micro_batch < shard.slots()) {
      const int64_t slot = state.micro_batch;
      const int64_t group = shard.group_of(slot);
      std::optional<Batch> batch = loader.next();
      TORCH_INTERNAL_ASSERT(batch, "loader ended before the planned micro-batches");
      batch->to(plan_.device);
      executor->micro_step(*batch, shard.group_samples(group), shard.is_padding(slot));
      ++state.micro_batch;

      const bool group_done = state.micro_batch == shard.group_end(group);
      const int64_t updates_in_epoch = shard.first_update() + group + (group_done ? 1 : 0);
      if (group_done) {
        const ScheduleValues values = schedule_at(schedule, schedule_step(group));
        optimizer.set_lr(kWeightGroup, values.lr);
        optimizer.set_lr(kNormGroup, values.lr);
        optimizer.set_lr(kBiasGroup, values.bias_lr);
        // Ultralytics warms up SGD momentum only; AdamW's beta1 stays fixed.
        if (plan_.optimizer == OptimizerKind::sgd) optimizer.set_momentum(values.momentum);
        lr = values.lr;
        executor->update();
        ++state.updates;
      }
      // Ranks are in step only between updates, so a distributed run stops there, and all ranks
      // vote on stopping and on reading statistics back (rank 0's clock decides), so that they
      // take the collectives inside those together.
      if (!group_done && collective_.distributed()) continue;
      const bool read_due = group_done && world.is_main() && seconds_since(last_read) >= kReadBackSeconds;
      const std::vector<double> vote = collective_.all_reduce(
          {stop_check_ ? static_cast<double>(stop_check_()) : 0.0, read_due ? 1.0 : 0.0}, Reduction::max);
      const int stop_signal = static_cast<int>(vote[0]);
      if (group_done) {
        const bool epoch_done = state.micro_batch == shard.slots();
        const bool save_due =
            settings_.output.save_interval > 0 && !epoch_done && state.updates % settings_.output.save_interval == 0;
        if (epoch_done || save_due || vote[1] > 0) {
          last_read = Clock::now();
          fold_statistics(epoch, updates_in_epoch, epoch_start, lr);
        }
        if (save_due && !last_path.empty()) {
          save_checkpoint(last_path, make_checkpoint(epoch, shard.position(state.micro_batch), false));
        }
      }
      if (stop_signal != 0) {
        fold_statistics(epoch, updates_in_epoch, epoch_start, lr);
        if (!last_path.empty()) {
          save_checkpoint(last_path, make_checkpoint(epoch, shard.position(state.micro_batch), !group_done));
        }
        throw TrainingInterrupted(last_path, stop_signal);
      }
    }
    TORCH_INTERNAL_ASSERT(!loader.next(), "loader has micro-batches beyond the plan");

    EpochRecord record;
    record.epoch = epoch + 1;
    record.seconds = seconds_since(epoch_start);
    record.losses = state.totals.mean_losses();
    record.lr = lr;
    record.grad_norm = state.totals.grad_norm_sum / static_cast<double>(std::max<int64_t>(state.totals.updates, 1));
    record.skipped_updates = state.totals.skipped;
    record.images_per_second = static_cast<double>(state.totals.samples) / std::max(record.seconds, 1e-9);

    if (settings_.output.val || epoch + 1 == plan_.epochs) {
      for (auto* observer : observers_) observer->on_validation_start(epoch + 1);
      if (ema) ema->swap(model);
      // Each rank validates its share of the batches; the task combines every rank's partials.
      const Metrics metrics = task_.metrics(
          collective_.all_gather(task_.validation_partials(plan_.device, {world.rank, world.world_size})));
      if (ema) ema->swap(model);
      record.metrics = metrics.values;
      record.fitness = metrics.fitness;
      record.confusion = metrics.confusion;
      record.curves = metrics.curves;
    }
    record.peak_memory_mb = peak_memory_mb(plan_.device);
    const ExecutionReport execution_report = executor->report();
    record.input_shapes = execution_report.input_shapes;
    record.graph_captures = execution_report.graph_captures;
    record.best = record.fitness > state.best_fitness;
    if (record.best) {
      state.best_fitness = record.fitness;
      state.best_epoch = epoch + 1;
      state.stale_epochs = 0;
    } else {
      ++state.stale_epochs;
    }

    // The checkpoint resumes at the start of the next epoch.
    state.micro_batch = 0;
    state.anchor = 0;
    state.totals = EpochTotals{};
    if (!last_path.empty()) {
      const Checkpoint checkpoint = make_checkpoint(epoch + 1, 0, false);
      save_checkpoint(last_path, checkpoint);
      summary.last_weights = last_path;
      if (record.best) save_checkpoint(run_folder_ / "weights" / "best.pt", checkpoint);
      if (settings_.output.save_period > 0 && (epoch + 1) % settings_.output.save_period == 0) {
        save_checkpoint(run_folder_ / "weights" / ("epoch" + std::to_string(epoch + 1) + ".pt"), checkpoint);
      }
    }
    for (auto* observer : observers_) observer->on_epoch_end(record);
    summary.last_metrics = record.metrics;
    summary.epochs_run = epoch + 1;
    if (state.stale_epochs >= settings_.output.patience) {
      spdlog::info("stopping early: no improvement for {} epochs (patience), best epoch {}", settings_.output.patience,
                   state.best_epoch);
      break;
    }
  }
  summary.updates = state.updates;
  summary.best_fitness = state.best_fitness;
  summary.best_epoch = state.best_epoch;
  if (!run_folder_.empty() && state.best_epoch > 0) summary.best_weights = run_folder_ / "weights" / "best.pt";
  summary.seconds = seconds_since(run_start);
  summary.gradient_all_reduces = executor->gradient_all_reduces();
  summary.execution = executor->report();
  if (execution.channels_last) summary.execution.executor += ", channels-last";
  return summary;
}

}  // namespace trainer
