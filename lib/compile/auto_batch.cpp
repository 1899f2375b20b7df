#include "compile/auto_batch.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "compile/execution_probe.h"
#include "engine/trainer.h"
#include "engine/training_plan.h"
#include "util/error.h"
#include "util/memory.h"

namespace trainer {
namespace {

struct LineFit {
  double slope = 0, intercept = 0;
};

// Least squares, as numpy.polyfit(x, y, 1).
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  const auto n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  return {slope, (sy - slope * sx) / n};
}

AutoBatchChoice fallback(std::string why) { return {kAutoBatchFallback, 0, true, std::move(why)}; }

}  // namespace

AutoBatchChoice choose_auto_batch(const DeviceMemory& memory, double share, int64_t dataset_size,
                                  const StepMemory& measure) {
  std::vector<int64_t> sizes{1, 2, 4, 8, 16};
  if (memory.total_gb >= 16) sizes.insert(sizes.end(), {32, 64});
  if (dataset_size > 0) {
    sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](int64_t size) { return size > dataset_size; }),
                sizes.end());
  }
  std::vector<std::optional<double>> peaks;
  for (const int64_t size : sizes) peaks.push_back(measure(size));
  // The sizes that fit, below the total and growing: a step that did not grow measured noise.
  std::vector<double> x, y;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (!peaks[i] || *peaks[i] <= 0 || *peaks[i] >= memory.total_gb) continue;
    if (i > 0 && peaks[i - 1] && *peaks[i] <= *peaks[i - 1]) continue;
    x.push_back(static_cast<double>(sizes[i]));
    y.push_back(*peaks[i]);
  }
  if (x.size() < 2) return fallback("fewer than two batch sizes fit to fit a line through");
  const LineFit line = fit_line(x, y);
  const double free_gb = memory.total_gb - memory.in_use_gb;
  // Ultralytics rounds the memory it aims at to whole GiB (Python's round: half to even).
  auto batch = static_cast<int64_t>((std::nearbyint(free_gb * share) - line.intercept) / line.slope);
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (peaks[i]) continue;
    // The first size that ran out of memory caps the batch below it.
    if (batch >= sizes[i]) batch = sizes[i == 0 ? 0 : i - 1];
    break;
  }
  if (batch < 1 || batch > 1024) return fallback("batch=" + std::to_string(batch) + " is outside the safe range 1-1024");
  if (dataset_size > 0) batch = std::min(batch, dataset_size);
  const double predicted = (line.slope * static_cast<double>(batch) + line.intercept + memory.in_use_gb) / memory.total_gb;
  return {batch, predicted, false, ""};
}

int64_t auto_batch(Task& task, const Settings& settings, const WorldLayout& world) {
  const double share = settings.schedule.auto_batch.value();
  if (world.world_size > 1) {
    throw UserError("batch=" + std::to_string(share) + ": AutoBatch chooses one GPU's batch; with " +
                    std::to_string(world.world_size) + " ranks give the batch size, as Ultralytics asks");
  }
  const TrainingPlan base = plan_for(settings, task, world);
  if (!base.device.is_cuda()) {
    spdlog::warn("AutoBatch: intended for CUDA devices, using default batch-size {}", kAutoBatchFallback);
    return kAutoBatchFallback;
  }
  constexpr double kMiB = 1.0 / 1024;
  const DeviceMemory memory{total_memory_mb(base.device) * kMiB, used_memory_mb(base.device) * kMiB};
  spdlog::info("AutoBatch: computing the batch for imgsz {} at {:.0f}% of {} ({:.2f}G total, {:.2f}G free)",
               settings.data.imgsz.value_or(0), share * 100, device_name(base.device), memory.total_gb,
               memory.total_gb - memory.in_use_gb);
  const ExecutionConfig eager;  // measured as Ultralytics profiles: eagerly, cuDNN's autotuning off
  const StepMemory measure = [&](int64_t batch) -> std::optional<double> {
    Settings trial = settings;
    trial.schedule.batch = batch;
    trial.schedule.accumulate = 1;
    const TrainingPlan plan = plan_for(trial, task, world);
    try {
      const std::vector<Batch> batches = probe_batches(task, trial, plan, 1);
      return probe_execution(task, trial, plan, eager, batches, 0).peak_memory_mb * kMiB;
    } catch (const c10::Error& error) {
      if (std::string(error.what()).find("out of memory") == std::string::npos) throw;
      return std::nullopt;
    }
  };
  const AutoBatchChoice choice = choose_auto_batch(
      memory, share, static_cast<int64_t>(task.training().train_indices().size()), measure);
  if (choice.fell_back) {
    spdlog::warn("AutoBatch: {}, using default batch-size {}", choice.why, choice.batch);
  } else {
    spdlog::info("AutoBatch: using batch-size {} for {} {:.2f}G/{:.2f}G ({:.0f}%)", choice.batch,
                 device_name(base.device), memory.total_gb * choice.predicted_share, memory.total_gb,
                 choice.predicted_share * 100);
  }
  return choice.batch;
}

}  // namespace trainer
