#include "compile/execution_probe.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "compile/compiled_execution.h"
#include "engine/generator_state.h"
#include "engine/step_executor.h"
#include "engine/training_components.h"
#include "engine/update_step.h"
#include "util/memory.h"

namespace trainer {
namespace {

using Clock = std::chrono::steady_clock;

// A kept tensor's values go back into the live tensor's storage where the layout is the same: cuDNN's
// LSTM needs its weights where flatten_parameters packed them. Where the probe changed the layout
// (channels-last), set_data puts back the original storage, layout and values.
void restore(const torch::Tensor& live, const torch::Tensor& kept) {
  if (live.strides() == kept.strides()) {
    live.detach().copy_(kept);
  } else {
    live.set_data(kept);
  }
}

// Everything a probe's updates change in the model and the process, kept aside.
class ModelSnapshot {
 public:
  explicit ModelSnapshot(torch::nn::Module& model) : model_(model) {
    torch::NoGradGuard no_grad;
    for (const auto& parameter : model.parameters()) {
      parameters_.push_back(parameter.detach().clone());
      grads_.push_back(parameter.grad().defined() ? parameter.grad().detach().clone() : torch::Tensor());
    }
    for (const auto& buffer : model.buffers()) buffers_.push_back(buffer.detach().clone());
  }

  ~ModelSnapshot() {
    torch::NoGradGuard no_grad;
    const auto parameters = model_.parameters();
    for (size_t i = 0; i < parameters.size(); ++i) {
      restore(parameters[i], parameters_[i]);
      parameters[i].mutable_grad() = grads_[i];
    }
    const auto buffers = model_.buffers();
    for (size_t i = 0; i < buffers.size(); ++i) restore(buffers[i], buffers_[i]);
    restore_generators(generators_);
  }

 private:
  torch::nn::Module& model_;
  std::vector<torch::Tensor> parameters_;
  std::vector<torch::Tensor> grads_;
  std::vector<torch::Tensor> buffers_;
  NamedTensors generators_ = generator_states();
};

// "micro-steps 15.21 + 0.30 + 0.29 s, update 0.52 s"
std::string first_update_text(const std::vector<double>& parts) {
  if (parts.empty()) return "";
  std::string text = "micro-steps ";
  for (size_t i = 0; i + 1 < parts.size(); ++i) text += fmt::format("{}{:.2f}", i == 0 ? "" : " + ", parts[i]);
  return text + fmt::format(" s, update {:.2f} s", parts.back());
}

}  // namespace

std::vector<Batch> probe_batches(Task& task, const Settings& settings, const TrainingPlan& plan,
                                int64_t count) {
  const uint64_t seed = static_cast<uint64_t>(settings.run.seed);
  const TaskTraining& training = task.training();
  const auto batches = training.epoch_batches(seed, 0, plan.micro_batch);
  const Loader::Collate collate = training.train_collate(seed);
  std::vector<Batch> out;
  for (size_t i = 0; i < batches.size() && static_cast<int64_t>(out.size()) < count; ++i) {
    out.push_back(collate(batches[i], 0));
    out.back().to(plan.device);
  }
  return out;
}

ProbeMeasurement probe_execution(Task& task, const Settings& settings, const TrainingPlan& plan,
                                 const ExecutionConfig& config, const std::vector<Batch>& batches,
                                 int64_t timed_updates) {
  TORCH_CHECK(!batches.empty(), "a probe needs at least one batch");
  torch::nn::Module& model = task.model();
  const ModelSnapshot snapshot(model);
  enable_global_switches(config);
  apply_memory_format(model, config.channels_last);
  for (const auto& parameter : model.parameters()) {
    if (parameter.grad().defined()) parameter.mutable_grad() = torch::Tensor();
  }
  TrainingComponents components = build_training_components(settings, plan, model);
  const std::unique_ptr<StepExecutor> executor =
      compiled_execution().make_executor(task, *components.optimizer, *components.scaler, components.ema.get(),
                                         {plan.device, plan.amp_dtype, settings.optim.grad_clip, config,
                                          settings.execution.compile_cache_limit, plan.micro_batch},
                                         single_process());

  UpdateStep step(*executor, *components.optimizer, schedule_options(settings.schedule, settings.optim, plan),
                  plan.optimizer);

  ProbeMeasurement measurement;
  measurement.config = config;
  size_t next = 0;
  int64_t updates = 0;
  int64_t samples = 0;
  // `parts` (the first update only): the time of each micro-step and of the update, each waited
  // for on the device (read_stats() does), so a slow first update shows where its time went.
  const auto run_update = [&](std::vector<double>* parts) {
    auto mark = Clock::now();
    const auto lap = [&] {
      if (parts == nullptr) return;
      const StepStats stats = executor->read_stats();
      for (const double loss : stats.loss_sums) measurement.first_update_loss += loss;
      if (stats.updates > 0) measurement.first_update_grad_norm = stats.grad_norm;
      const auto now = Clock::now();
      parts->push_back(std::chrono::duration<double>(now - mark).count());
      mark = now;
    };
    for (int64_t m = 0; m < plan.accumulate; ++m) {
      const Batch& batch = batches[next++ % batches.size()];
      step.micro_step(batch, batch.size * plan.accumulate);
      samples += batch.size;
      lap();
    }
    step.update(updates++);
    lap();
  };
  reset_peak_memory(plan.device);
  const auto start = Clock::now();
  run_update(&measurement.first_update_parts);
  executor->read_stats();  // waits for the device
  const auto warm = Clock::now();
  samples = 0;
  for (int64_t u = 0; u < timed_updates; ++u) run_update(nullptr);
  executor->read_stats();
  const auto end = Clock::now();
  measurement.first_update_seconds = std::chrono::duration<double>(warm - start).count();
  const double timed = std::chrono::duration<double>(end - warm).count();
  measurement.seconds_per_update = timed / static_cast<double>(std::max<int64_t>(timed_updates, 1));
  measurement.images_per_second = static_cast<double>(samples) / std::max(timed, 1e-9);
  measurement.peak_memory_mb = peak_memory_mb(plan.device);
  measurement.executor = executor->report().executor;
  return measurement;
}

bool clearly_faster(double seconds, double best) { return seconds < best * (1 - kClearlyFasterGain); }

double same_numbers_tolerance(bool mixed_precision) { return mixed_precision ? 0.05 : 1e-3; }

bool computes_alike(const ProbeMeasurement& measured, const ProbeMeasurement& reference, double tolerance) {
  const auto close = [tolerance](double a, double b) {
    return std::abs(a - b) <= tolerance * std::max({std::abs(a), std::abs(b), 1e-12});
  };
  const double loss = measured.first_update_loss, reference_loss = reference.first_update_loss;
  const bool loss_alike = !std::isfinite(reference_loss) || (std::isfinite(loss) && close(loss, reference_loss));
  // An fp16 update whose loss-scaled gradients overflowed has an infinite norm in one
  // configuration and maybe not in another; only finite norms are compared.
  const double norm = measured.first_update_grad_norm, reference_norm = reference.first_update_grad_norm;
  const bool norm_alike = !std::isfinite(norm) || !std::isfinite(reference_norm) || close(norm, reference_norm);
  return loss_alike && norm_alike;
}

std::vector<ProbeMeasurement> probe_in_turns(Task& task, const Settings& settings, const TrainingPlan& plan,
                                             const std::vector<ExecutionConfig>& configs,
                                             const std::vector<Batch>& batches, int64_t timed_updates,
                                             int64_t rounds) {
  std::vector<ProbeMeasurement> best(configs.size());
  for (int64_t round = 0; round < rounds; ++round) {
    for (size_t i = 0; i < configs.size(); ++i) {
      spdlog::info("probing {} ({} of {}, round {} of {}: {} updates)", configs[i].describe(), i + 1, configs.size(),
                   round + 1, rounds, timed_updates + 1);
      const ProbeMeasurement measured = probe_execution(task, settings, plan, configs[i], batches, timed_updates);
      spdlog::info("probed {}: {:.4f} s/update, first update {:.2f} s ({}; loss {:.6g}, grad norm {:.6g})",
                   configs[i].describe(), measured.seconds_per_update, measured.first_update_seconds,
                   first_update_text(measured.first_update_parts), measured.first_update_loss,
                   measured.first_update_grad_norm);
      if (round == 0 || measured.seconds_per_update < best[i].seconds_per_update) {
        ProbeMeasurement kept = measured;
        if (round > 0) {
          // The first update is slowest in the first round (cold caches); keep that figure.
          kept.first_update_seconds = best[i].first_update_seconds;
          kept.first_update_parts = best[i].first_update_parts;
        }
        kept.peak_memory_mb = std::max(measured.peak_memory_mb, best[i].peak_memory_mb);
        best[i] = std::move(kept);
      }
    }
  }
  return best;
}

}  // namespace trainer
