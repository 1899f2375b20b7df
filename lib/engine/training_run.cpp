#include "engine/training_run.h"

#include <filesystem>

#include <spdlog/spdlog.h>

#include "config/recipe.h"
#include "dist/module_sync.h"
#include "engine/best_checkpoints.h"
#include "engine/deployable.h"
#include "engine/generator_state.h"
#include "engine/time_budget.h"
#include "io/state_dict.h"
#include "models/trainable.h"
#include "util/error.h"
#include "util/atomic_file.h"
#include "util/memory.h"

namespace trainer {
namespace {

using Clock = std::chrono::steady_clock;
// Statistics are copied to the host at most this often: the one sync point of the loop.
constexpr double kReadBackSeconds = 0.5;
// BatchNorm statistics over fewer samples than this are noisy (R14).
constexpr int64_t kSmallBatchNormBatch = 8;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Loss sums and sample and batch counts are each rank's own; everything else read back derives
// from the all-reduced gradients and is the same on every rank.
void sum_over_ranks(StepStats& stats, Collective& collective) {
  std::vector<double> values = stats.loss_sums;
  values.push_back(static_cast<double>(stats.samples));
  values.push_back(static_cast<double>(stats.batches));
  values = collective.all_reduce(values, Reduction::sum);
  stats.batches = static_cast<int64_t>(values.back());
  values.pop_back();
  stats.samples = static_cast<int64_t>(values.back());
  values.pop_back();
  stats.loss_sums = values;
}

// What the compile mode resolves to for this run (measured, for max-autotune), with its process-wide
// switches set and the model in its memory layout.
ExecutionConfig prepare_execution(const Settings& settings, const TrainingPlan& plan, Task& task,
                                  const StepExecution& execution, Collective& collective) {
  torch::nn::Module& model = task.model();
  const ResolvedExecution resolved =
      resolve_execution(plan.compile, plan.device, plan.amp_dtype.has_value(), is_convolutional(model));
  if (!resolved.unavailable.empty()) {
    spdlog::log(resolved.unavailable_changes_run ? spdlog::level::warn : spdlog::level::info, "{}",
                resolved.unavailable);
  }
  ExecutionConfig chosen = resolved.candidates.empty()
                               ? resolved.config
                               : execution.choose(task, settings, plan, resolved.candidates, collective);
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
                         Collective& collective, RunHooks hooks, const std::optional<Checkpoint>& resume,
                         const StepExecution& execution)
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
  execution_ = prepare_execution(settings_, plan_, task_, execution, collective_);
  components_ = build_training_components(settings_, plan_, model_);
  if (resume) restore(*resume);
  // After every weight is in place (R5): a graph executor captures the tensors as they are now.
  executor_ = execution.make_executor(task_, *components_.optimizer, *components_.scaler, components_.ema.get(),
                                      {plan_.device, plan_.amp_dtype, settings_.optim.grad_clip, execution_,
                                       settings_.execution.compile_cache_limit, plan_.micro_batch},
                                      collective_);
  update_step_ = std::make_unique<UpdateStep>(
      *executor_, *components_.optimizer, schedule_options(settings_.schedule, settings_.optim, plan_), plan_.optimizer);
  loader_ = training_loader();
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
  for (auto* observer : hooks_.observers) {
    observer->on_start(plan_, task_.training().loss_names(), task_.validator().metric_names());
  }
  clock_.row_start = Clock::now();
  train_start_ = Clock::now();
  first_epoch_ = state_.epoch;
  for (; state_.epoch < plan_.epochs && !patience_stop_; ++state_.epoch) {
    train_epoch();
    // A row inside the epoch spent the patience: its last.pt is where the run stands.
    if (patience_stop_) break;
    end_epoch();
    // A stop asked for during validation or the epoch's saves ends the run here, at the last.pt
    // just saved, rather than an update into the next epoch; after the last epoch the run is done.
    if (!patience_stop_ && state_.epoch + 1 < plan_.epochs) {
      const int stop_signal = static_cast<int>(collective_.all_reduce({stop_wish()}, Reduction::max)[0]);
      if (stop_signal != 0) throw TrainingInterrupted(folder_.last(), stop_signal);
    }
  }
  summary_.updates = state_.updates;
  summary_.best_fitness = state_.best_fitness;
  summary_.best_epoch = state_.best_epoch;
  summary_.best_updates = state_.best_updates;
  if (state_.best_epoch > 0) summary_.best_weights = folder_.best();
  summary_.seconds = seconds_since(start_);
  summary_.gradient_all_reduces = executor_->gradient_all_reduces();
  summary_.execution = executor_->report();
  if (execution_.channels_last) summary_.execution.executor += ", channels-last";
  return summary_;
}

void TrainingRun::train_epoch() {
  clock_.epoch_start = Clock::now();
  task_.training().begin_epoch(state_.epoch);
  const auto batches = task_.training().epoch_batches(static_cast<uint64_t>(settings_.run.seed), state_.epoch, plan_.micro_batch);
  TORCH_INTERNAL_ASSERT(static_cast<int64_t>(batches.size()) == plan_.epoch_micro_batches,
                        "the task's batch count changed between epochs");
  const EpochShard shard(batches, state_.anchor, plan_.accumulate, collective_.layout());
  epoch_end_ = epoch_end_slot(shard);
  stop_position_ = epoch_end_ < shard.slots() ? shard.position(epoch_end_) : 0;
  // The loader prepares only the micro-batches the epoch runs (an updates= run stops in its last one).
  auto rank_batches = shard.rank_batches();
  rank_batches.resize(static_cast<size_t>(epoch_end_));
  loader_->start_epoch(std::move(rank_batches), state_.epoch, static_cast<size_t>(state_.micro_batch));
  clock_.lr = update_step_->values_at(schedule_step(shard, shard.group_of(state_.micro_batch))).lr;
  while (state_.micro_batch < epoch_end_ && !patience_stop_) run_micro_batch(shard);
  TORCH_INTERNAL_ASSERT(patience_stop_ || budget_stop_ || !loader_->next(), "loader has micro-batches beyond the plan");
}

int64_t TrainingRun::epoch_end_slot(const EpochShard& shard) const {
  const int64_t groups = epoch_updates(plan_, state_.epoch) - shard.first_update();
  return groups >= shard.updates() ? shard.slots() : shard.group_end(groups - 1);
}

void TrainingRun::run_micro_batch(const EpochShard& shard) {
  const int64_t slot = state_.micro_batch;
  const int64_t group = shard.group_of(slot);
  std::optional<Batch> batch = loader_->next();
  TORCH_INTERNAL_ASSERT(batch, "loader ended before the planned micro-batches");
  batch->to(plan_.device);
  update_step_->micro_step(*batch, shard.group_samples(group), shard.is_padding(slot));
  ++state_.micro_batch;
  const bool group_done = state_.micro_batch == shard.group_end(group);
  if (group_done) {
    clock_.lr = update_step_->update(schedule_step(shard, group)).lr;
    ++state_.updates;
  }
  // Ranks are in step only between updates, so a distributed run stops there.
  if (!group_done && collective_.distributed()) return;
  between_updates(shard, group, group_done);
}

double TrainingRun::stop_wish() const { return hooks_.stop_check ? static_cast<double>(hooks_.stop_check()) : 0.0; }

int64_t TrainingRun::schedule_step(const EpochShard& shard, int64_t group) const {
  // The schedule follows an update's place in the plan, not the count of updates done, so a run
  // resumed with another world size continues the curve where it was.
  return state_.epoch * plan_.updates_per_epoch + shard.first_update() + group;
}

void TrainingRun::between_updates(const EpochShard& shard, int64_t group, bool group_done) {
  const int64_t updates_in_epoch = shard.first_update() + group + (group_done ? 1 : 0);
  // All ranks vote on stopping and on reading statistics back (rank 0's clock decides), so that
  // they take the collectives inside those together.
  const bool read_due =
      group_done && collective_.layout().is_main() && seconds_since(clock_.last_read) >= kReadBackSeconds;
  const bool spent = group_done && collective_.layout().is_main() && budget_spent();
  const std::vector<double> vote =
      collective_.all_reduce({stop_wish(), read_due ? 1.0 : 0.0, spent ? 1.0 : 0.0}, Reduction::max);
  const int stop_signal = static_cast<int>(vote[0]);
  if (group_done) {
    if (vote[2] > 0) stop_epoch_here(shard);
    // The epoch's last update makes its row (if any) in end_epoch, with the next epoch's last.pt.
    const bool epoch_done = state_.micro_batch == epoch_end_;
    const auto due = [&](int64_t interval) { return interval > 0 && !epoch_done && state_.updates % interval == 0; };
    const bool row_due = due(settings_.output.val_interval);
    const bool save_due = !row_due && due(settings_.output.save_interval);
    if (epoch_done || save_due || row_due || vote[1] > 0) {
      clock_.last_read = Clock::now();
      fold_statistics(updates_in_epoch);
    }
    if (row_due) {
      const EpochRecord record = take_record(settings_.output.val);
      save_and_report(state_.epoch, shard.position(state_.micro_batch), &record);
    }
    if (save_due && folder_.writes()) {
      save_checkpoint(folder_.last(), checkpoint(state_.epoch, shard.position(state_.micro_batch), false));
    }
  }
  if (stop_signal == 0) return;
  fold_statistics(updates_in_epoch);
  if (folder_.writes()) {
    save_checkpoint(folder_.last(), checkpoint(state_.epoch, shard.position(state_.micro_batch), !group_done));
  }
  throw TrainingInterrupted(folder_.last(), stop_signal);
}

void TrainingRun::fold_statistics(int64_t updates_in_epoch) {
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
  // The totals run since the previous results row, so the rates do too.
  const EpochTotals& totals = state_.totals;
  const double row_seconds = std::max(seconds_since(clock_.row_start), 1e-9);
  ProgressInfo info;
  info.epoch = state_.epoch + 1;
  info.epochs = plan_.epochs;
  info.update = updates_in_epoch;
  info.updates_per_epoch = epoch_updates(plan_, state_.epoch);
  info.losses =
      totals.mean_losses();  // the running mean since the row began, as Ultralytics' tloss
  info.lr = clock_.lr;
  info.grad_norm = stats.grad_norm;
  info.elapsed_seconds = seconds_since(clock_.epoch_start);
  info.images_per_second = static_cast<double>(totals.samples) / row_seconds;
  info.updates_per_second = static_cast<double>(totals.updates) / row_seconds;
  info.memory_mb = peak_memory_mb(plan_.device);
  info.eta_seconds = row_seconds / static_cast<double>(std::max<int64_t>(totals.updates, 1)) *
                     static_cast<double>(info.updates_per_epoch - updates_in_epoch);
  for (auto* observer : hooks_.observers) observer->on_progress(info);
}

EpochRecord TrainingRun::take_record(bool validate_now) {
  const EpochTotals& totals = state_.totals;
  EpochRecord record;
  record.epoch = state_.epoch + 1;
  record.updates = state_.updates;
  record.seconds = seconds_since(clock_.row_start);
  record.losses = totals.mean_losses();
  record.lr = clock_.lr;
  record.grad_norm = totals.mean_grad_norm();
  record.skipped_updates = totals.skipped;
  record.images_per_second = static_cast<double>(totals.samples) / std::max(record.seconds, 1e-9);
  if (validate_now) validate(record);
  record.peak_memory_mb = peak_memory_mb(plan_.device);
  const ExecutionReport execution = executor_->report();
  record.input_shapes = execution.input_shapes;
  record.graph_captures = execution.graph_captures;
  record.best = record.fitness > state_.best_fitness;
  if (record.best) {
    state_.best_fitness = record.fitness;
    state_.best_epoch = record.epoch;
    state_.best_updates = record.updates;
    state_.stale_epochs = 0;
  } else {
    ++state_.stale_epochs;
  }
  state_.totals = EpochTotals{};
  // patience 0 never stops early, as Ultralytics' EarlyStopping reads it.
  if (settings_.output.patience > 0 && state_.stale_epochs >= settings_.output.patience) {
    patience_stop_ = true;
    spdlog::info("stopping early: no improvement for {} validations (patience), best at epoch {}, update {}",
                 settings_.output.patience, state_.best_epoch, state_.best_updates);
  }
  return record;
}

void TrainingRun::validate(EpochRecord& record) {
  for (auto* observer : hooks_.observers) observer->on_validation_start(record.epoch);
  const std::unique_ptr<ModelEma>& ema = components_.ema;
  if (ema) ema->swap(model_);
  // Each rank validates its share of the batches; the meters are summed over the ranks.
  const WorldLayout& world = collective_.layout();
  const Metrics metrics = task_.validator().validate(plan_.device, {world.rank, world.world_size}, collective_);
  if (ema) ema->swap(model_);
  record.metrics = metrics.values;
  record.fitness = metrics.fitness;
  record.confusion = metrics.confusion;
  record.curves = metrics.curves;
}

void TrainingRun::end_epoch() {
  const int64_t finished = state_.epoch + 1;
  const bool last = finished == plan_.epochs || budget_stop_;
  const int64_t interval = settings_.output.val_interval;
  std::optional<EpochRecord> record;
  if (interval == 0 || last || state_.updates % interval == 0) record = take_record(settings_.output.val || last);
  // Before the checkpoints, so that last.pt resumes with the length the run goes on with.
  if (budget_seconds(settings_.schedule.time) > 0) fit_epochs_to_budget(finished);
  summary_.epochs_run = finished;
  // The partial last epoch of an updates= run stays where it stopped: resumed with more updates, it goes on there.
  if (stop_position_ > 0) {
    save_and_report(state_.epoch, stop_position_, record ? &*record : nullptr);
    return;
  }
  // The checkpoint resumes at the start of the next epoch.
  state_.start_next_epoch();
  save_and_report(finished, 0, record ? &*record : nullptr);
}

bool TrainingRun::budget_spent() const {
  const double budget = budget_seconds(settings_.schedule.time);
  return budget > 0 && seconds_since(train_start_) >= budget;
}

void TrainingRun::stop_epoch_here(const EpochShard& shard) {
  budget_stop_ = true;
  epoch_end_ = state_.micro_batch;
  stop_position_ = epoch_end_ < shard.slots() ? shard.position(epoch_end_) : 0;
  spdlog::info("time={} h is spent after update {} (epoch {}): the run ends here", *settings_.schedule.time,
               state_.updates, state_.epoch + 1);
}

void TrainingRun::fit_epochs_to_budget(int64_t finished) {
  const double elapsed = seconds_since(train_start_);
  const int64_t estimate =
      budget_stop_ ? finished
                   : epochs_in_budget(budget_seconds(settings_.schedule.time), elapsed, finished - first_epoch_, finished);
  // Rank 0's clock decides, so that every rank runs the same epochs.
  const double mine = collective_.layout().is_main() ? static_cast<double>(estimate) : 0.0;
  const auto epochs = static_cast<int64_t>(collective_.all_reduce({mine}, Reduction::max)[0]);
  if (epochs == plan_.epochs) return;
  spdlog::info("time={} h: {} epoch(s) took {:.1f} s, so the run's epochs are now {} (were {})",
               *settings_.schedule.time, finished - first_epoch_, elapsed, epochs, plan_.epochs);
  plan_ = with_epochs(plan_, epochs);
  update_step_->set_schedule(schedule_options(settings_.schedule, settings_.optim, plan_));
  task_.training().set_planned_epochs(epochs);
  Settings recorded = settings_;
  recorded.schedule.epochs = epochs;
  recipe_ = to_yaml(recorded);
  if (folder_.writes()) write_file_atomically(folder_.args(), recipe_);
  // The next epochs' batches from a collate of the new length (detection's close_mosaic counts back from it).
  if (epochs > finished) loader_ = training_loader();
}

std::unique_ptr<Loader> TrainingRun::training_loader() const {
  return std::make_unique<Loader>(
      Loader::for_device(task_.training().train_collate(static_cast<uint64_t>(settings_.run.seed)), plan_.device),
      settings_.data.workers, settings_.data.prefetch);
}

void TrainingRun::save_and_report(int64_t epoch, int64_t micro_batch, const EpochRecord* record) {
  // The row before its checkpoint: a run killed between the two resumes from the previous
  // checkpoint, which drops the row and writes it again; the other order would lose it.
  if (record != nullptr) {
    for (auto* observer : hooks_.observers) observer->on_epoch_end(*record);
    summary_.last_metrics = record->metrics;
  }
  // keep_best ranks the validated epoch ends; the history is part of the state last.pt carries.
  HistoryChange history;
  if (micro_batch == 0 && record != nullptr && !record->metrics.empty())
    history = admit_checkpoint(state_.kept, settings_.output.keep_best, {record->epoch, record->fitness});
  if (folder_.writes()) {
    // last.pt last: a run killed before it resumes from the previous one and writes the others again.
    const Checkpoint saved = checkpoint(epoch, micro_batch, false);
    if (record != nullptr && record->best) save_checkpoint(folder_.best(), strip_for_inference(saved));
    // save_period keeps epoch ends only (micro-batch 0 of the next epoch).
    const int64_t period = settings_.output.save_period;
    if (micro_batch == 0 && period > 0 && epoch % period == 0) save_checkpoint(folder_.epoch(epoch), saved);
    if (history.save) save_checkpoint(folder_.kept(record->epoch), saved);
    std::error_code ignored;  // a run resumed after a crash may find a displaced file gone already
    for (const int64_t displaced : history.removed) std::filesystem::remove(folder_.kept(displaced), ignored);
    save_checkpoint(folder_.last(), saved);
    summary_.last_weights = folder_.last();
  }
  if (record != nullptr) clock_.row_start = Clock::now();
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
  // What the data told the task (class names, channels, normalisation), so the file predicts without it.
  if (const Deployable* deployment = task_.deployment()) checkpoint.card = deployment->model_card();
  return checkpoint;
}

}  // namespace trainer
