#include "engine/training_run.h"

#include <spdlog/spdlog.h>

#include "config/recipe.h"
#include "dist/module_sync.h"
#include "engine/autotune.h"
#include "engine/generator_state.h"
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

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

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
    spdlog::warn(
        "norm=syncbn all-reduces inside the forward pass, which is not captured in CUDA graphs here; "
        "the steps run eagerly");
    chosen.graphs = false;
  }
  enable_global_switches(chosen);
  apply_memory_format(model, chosen.channels_last);
  if (plan.compile != CompileMode::none) spdlog::info("compile={}: {}", to_string(plan.compile), chosen.describe());
  return chosen;
}

void warn_small_batch_norm(const Settings& settings, const TrainingPlan& plan, torch::nn::Module& model) {
  if (settings.run.norm != NormKind::batch || !has_batch_norm(model) || plan.micro_batch >= kSmallBatchNormBatch) {
    return;
  }
  spdlog::warn(
      "BatchNorm sees micro-batches of {} samples: its statistics do not accumulate, so batch {} x "
      "accumulate {} is not a batch of {}; consider norm=gn or norm=frozen_bn{}",
      plan.micro_batch, plan.micro_batch, plan.accumulate, plan.effective_batch,
      plan.world_size > 1 ? ", or norm=syncbn (statistics over all ranks' micro-batches)" : "");
}

}  // namespace

TrainingRun::TrainingRun(const Settings& settings, Task& task, const TrainingPlan& plan, RunFolder folder,
                         Collective& collective, RunHooks hooks, const std::optional<Checkpoint>& resume)
    : settings_(settings),
      task_(task),
      plan_(plan),
      folder_(std::move(folder)),
      collective_(collective),
      hooks_(std::move(hooks)),
      model_(task.model()) {
  model_.to(plan_.device);
  model_.train();
  broadcast_parameters_and_buffers(model_, collective_);
  sync_batch_norm_ = std::make_unique<SyncBatchNormScope>(model_, collective_);
  warn_small_batch_norm(settings_, plan_, model_);
  // Before the optimizer allocates its buffers in the parameters' layout.
  execution_ = prepare_execution(settings_, plan_, task_, collective_);
  components_ = build_training_components(settings_, plan_, model_);
  if (resume) restore(*resume);
  // After every weight is in place (R5): a graph executor captures the tensors as they are now.
  executor_ = make_step_executor(task_, *components_.optimizer, *components_.scaler, components_.ema.get(),
                                 {plan_.device, plan_.amp_dtype, settings_.optim.grad_clip, execution_,
                                  settings_.execution.compile_cache_limit, plan_.micro_batch},
                                 collective_);
  update_step_ = std::make_unique<UpdateStep>(*executor_, *components_.optimizer, settings_, plan_);
  loader_ = std::make_unique<Loader>(task_.train_collate(static_cast<uint64_t>(settings_.run.seed)),
                                     settings_.data.workers, settings_.data.prefetch);
  recipe_ = to_yaml(settings_);
}

void TrainingRun::restore(const Checkpoint& checkpoint) {
  load_state_dict(model_, to_map(checkpoint.model), true);
  if (components_.ema) {
    auto ema_state = to_map(checkpoint.ema);
    ema_state["updates"] = torch::scalar_tensor(checkpoint.updates, torch::kLong);
    components_.ema->load_state(ema_state);
  }
  components_.optimizer->load_state(to_map(checkpoint.optimizer));
  components_.scaler->load_state(to_map(checkpoint.scaler));
  restore_gradients(model_, checkpoint.grads);
  restore_generators(checkpoint.rng);
  state_ = restore_loop_state(checkpoint, collective_.layout());
  spdlog::info("resuming at epoch {}, micro-batch {} of the epoch's {}, update {}", state_.epoch + 1,
               checkpoint.micro_batch, plan_.epoch_micro_batches, state_.updates);
}

TrainingSummary TrainingRun::fit() {
  for (auto* observer : hooks_.observers) observer->on_start(plan_, task_.loss_names(), task_.metric_names());
  TrainingSummary summary;
  for (; state_.epoch < plan_.epochs; ++state_.epoch) {
    EpochRecord record = train_epoch();
    if (settings_.output.val || state_.epoch + 1 == plan_.epochs) validate(record);
    end_epoch(record, summary);
    if (state_.stale_epochs >= settings_.output.patience) {
      spdlog::info("stopping early: no improvement for {} epochs (patience), best epoch {}", settings_.output.patience,
                   state_.best_epoch);
      break;
    }
    // A stop asked for during validation or the epoch's saves ends the run here, at the last.pt
    // just saved, rather than an update into the next epoch; after the last epoch the run is done.
    if (state_.epoch + 1 < plan_.epochs) {
      const int stop_signal = static_cast<int>(collective_.all_reduce({stop_wish()}, Reduction::max)[0]);
      if (stop_signal != 0) throw TrainingInterrupted(folder_.last(), stop_signal);
    }
  }
  summary.updates = state_.updates;
  summary.best_fitness = state_.best_fitness;
  summary.best_epoch = state_.best_epoch;
  if (state_.best_epoch > 0) summary.best_weights = folder_.best();
  summary.seconds = seconds_since(start_);
  summary.gradient_all_reduces = executor_->gradient_all_reduces();
  summary.execution = executor_->report();
  if (execution_.channels_last) summary.execution.executor += ", channels-last";
  return summary;
}

EpochRecord TrainingRun::train_epoch() {
  EpochClock clock;
  const auto batches = task_.epoch_batches(static_cast<uint64_t>(settings_.run.seed), state_.epoch, plan_.micro_batch);
  TORCH_INTERNAL_ASSERT(static_cast<int64_t>(batches.size()) == plan_.epoch_micro_batches,
                        "the task's batch count changed between epochs");
  const EpochShard shard(batches, state_.anchor, plan_.accumulate, collective_.layout());
  loader_->start_epoch(shard.rank_batches(), state_.epoch, static_cast<size_t>(state_.micro_batch));
  clock.lr = update_step_->values_at(schedule_step(shard, shard.group_of(state_.micro_batch))).lr;
  while (state_.micro_batch < shard.slots()) run_micro_batch(shard, clock);
  TORCH_INTERNAL_ASSERT(!loader_->next(), "loader has micro-batches beyond the plan");

  EpochRecord record;
  const EpochTotals& totals = state_.totals;
  record.epoch = state_.epoch + 1;
  record.seconds = seconds_since(clock.start);
  record.losses = totals.mean_losses();
  record.lr = clock.lr;
  record.grad_norm = totals.mean_grad_norm();
  record.skipped_updates = totals.skipped;
  record.images_per_second = static_cast<double>(totals.samples) / std::max(record.seconds, 1e-9);
  return record;
}

void TrainingRun::run_micro_batch(const EpochShard& shard, EpochClock& clock) {
  const int64_t slot = state_.micro_batch;
  const int64_t group = shard.group_of(slot);
  std::optional<Batch> batch = loader_->next();
  TORCH_INTERNAL_ASSERT(batch, "loader ended before the planned micro-batches");
  batch->to(plan_.device);
  update_step_->micro_step(*batch, shard.group_samples(group), shard.is_padding(slot));
  ++state_.micro_batch;
  const bool group_done = state_.micro_batch == shard.group_end(group);
  if (group_done) {
    clock.lr = update_step_->update(schedule_step(shard, group)).lr;
    ++state_.updates;
  }
  // Ranks are in step only between updates, so a distributed run stops there.
  if (!group_done && collective_.distributed()) return;
  between_updates(shard, group, group_done, clock);
}

double TrainingRun::stop_wish() const { return hooks_.stop_check ? static_cast<double>(hooks_.stop_check()) : 0.0; }

int64_t TrainingRun::schedule_step(const EpochShard& shard, int64_t group) const {
  // The schedule follows an update's place in the plan, not the count of updates done, so a run
  // resumed with another world size continues the curve where it was.
  return state_.epoch * plan_.updates_per_epoch + shard.first_update() + group;
}

void TrainingRun::between_updates(const EpochShard& shard, int64_t group, bool group_done, EpochClock& clock) {
  const int64_t updates_in_epoch = shard.first_update() + group + (group_done ? 1 : 0);
  // All ranks vote on stopping and on reading statistics back (rank 0's clock decides), so that
  // they take the collectives inside those together.
  const bool read_due =
      group_done && collective_.layout().is_main() && seconds_since(clock.last_read) >= kReadBackSeconds;
  const std::vector<double> vote = collective_.all_reduce({stop_wish(), read_due ? 1.0 : 0.0}, Reduction::max);
  const int stop_signal = static_cast<int>(vote[0]);
  if (group_done) {
    const bool epoch_done = state_.micro_batch == shard.slots();
    const int64_t interval = settings_.output.save_interval;
    const bool save_due = interval > 0 && !epoch_done && state_.updates % interval == 0;
    if (epoch_done || save_due || vote[1] > 0) {
      clock.last_read = Clock::now();
      fold_statistics(updates_in_epoch, clock);
    }
    if (save_due && folder_.writes()) {
      save_checkpoint(folder_.last(), checkpoint(state_.epoch, shard.position(state_.micro_batch), false));
    }
  }
  if (stop_signal == 0) return;
  fold_statistics(updates_in_epoch, clock);
  if (folder_.writes()) {
    save_checkpoint(folder_.last(), checkpoint(state_.epoch, shard.position(state_.micro_batch), !group_done));
  }
  throw TrainingInterrupted(folder_.last(), stop_signal);
}

void TrainingRun::fold_statistics(int64_t updates_in_epoch, const EpochClock& clock) {
  StepStats stats = executor_->read_stats();
  sum_over_ranks(stats, collective_);
  state_.totals.add(stats);
  if (!plan_.loss_scaling && stats.skipped_updates > 0) {
    throw UserError("non-finite loss or gradients in epoch " + std::to_string(state_.epoch + 1) + " (" +
                    std::to_string(stats.skipped_updates) +
                    " update(s) skipped); lower lr0, enable "
                    "grad_clip or check the data. Saved checkpoints are unchanged");
  }
  if (plan_.loss_scaling && stats.loss_scale < 1e-4) {
    throw UserError("the fp16 loss scale collapsed to " + std::to_string(stats.loss_scale) +
                    ": the loss is non-finite at every scale; lower lr0 or use amp=bf16");
  }
  const EpochTotals& totals = state_.totals;
  ProgressInfo info;
  info.epoch = state_.epoch + 1;
  info.epochs = plan_.epochs;
  info.update = updates_in_epoch;
  info.updates_per_epoch = plan_.updates_per_epoch;
  info.losses = stats.mean_losses();
  info.lr = clock.lr;
  info.grad_norm = stats.grad_norm;
  info.elapsed_seconds = seconds_since(clock.start);
  info.images_per_second = static_cast<double>(totals.samples) / std::max(info.elapsed_seconds, 1e-9);
  info.updates_per_second = static_cast<double>(totals.updates) / std::max(info.elapsed_seconds, 1e-9);
  info.memory_mb = peak_memory_mb(plan_.device);
  info.eta_seconds = info.elapsed_seconds / static_cast<double>(std::max<int64_t>(totals.updates, 1)) *
                     static_cast<double>(plan_.updates_per_epoch - updates_in_epoch);
  for (auto* observer : hooks_.observers) observer->on_progress(info);
}

void TrainingRun::validate(EpochRecord& record) {
  for (auto* observer : hooks_.observers) observer->on_validation_start(record.epoch);
  const std::unique_ptr<ModelEma>& ema = components_.ema;
  if (ema) ema->swap(model_);
  // Each rank validates its share of the batches; the meters are summed over the ranks.
  const WorldLayout& world = collective_.layout();
  const Metrics metrics = task_.validate(plan_.device, {world.rank, world.world_size}, collective_);
  if (ema) ema->swap(model_);
  record.metrics = metrics.values;
  record.fitness = metrics.fitness;
  record.confusion = metrics.confusion;
  record.curves = metrics.curves;
}

void TrainingRun::end_epoch(EpochRecord& record, TrainingSummary& summary) {
  record.peak_memory_mb = peak_memory_mb(plan_.device);
  const ExecutionReport execution = executor_->report();
  record.input_shapes = execution.input_shapes;
  record.graph_captures = execution.graph_captures;
  record.best = record.fitness > state_.best_fitness;
  if (record.best) {
    state_.best_fitness = record.fitness;
    state_.best_epoch = record.epoch;
    state_.stale_epochs = 0;
  } else {
    ++state_.stale_epochs;
  }
  // The checkpoint resumes at the start of the next epoch.
  state_.start_next_epoch();
  // The epoch's row before its checkpoint: a run killed between the two resumes from the previous
  // checkpoint, which drops the row and writes it again; the other order would lose it.
  for (auto* observer : hooks_.observers) observer->on_epoch_end(record);
  if (folder_.writes()) {
    // last.pt last: a run killed before it resumes from the previous one and writes the others again.
    const Checkpoint saved = checkpoint(record.epoch, 0, false);
    if (record.best) save_checkpoint(folder_.best(), strip_for_inference(saved));
    const int64_t period = settings_.output.save_period;
    if (period > 0 && record.epoch % period == 0) save_checkpoint(folder_.epoch(record.epoch), saved);
    save_checkpoint(folder_.last(), saved);
    summary.last_weights = folder_.last();
  }
  summary.last_metrics = record.metrics;
  summary.epochs_run = record.epoch;
}

Checkpoint TrainingRun::checkpoint(int64_t epoch, int64_t micro_batch, bool with_gradients) const {
  Checkpoint checkpoint;
  checkpoint.task = task_.name();
  checkpoint.model = state_dict(model_);
  if (components_.ema) {
    for (auto& [name, tensor] : components_.ema->state()) {
      if (name != "updates") checkpoint.ema.emplace_back(name, tensor);
    }
  }
  checkpoint.optimizer = components_.optimizer->state();
  checkpoint.scaler = components_.scaler->state();
  if (with_gradients) checkpoint.grads = accumulated_gradients(model_);
  checkpoint.rng = generator_states();
  checkpoint.progress = progress_tensors(state_, plan_.world_size);
  checkpoint.epoch = epoch;
  checkpoint.micro_batch = micro_batch;
  checkpoint.updates = state_.updates;
  checkpoint.best_fitness = state_.best_fitness;
  checkpoint.recipe = recipe_;
  return checkpoint;
}

}  // namespace trainer
