#include "engine/mode_comparison.h"

#include <fmt/format.h>

#include "util/memory.h"

namespace trainer {
namespace {

// A faster mode must win by this much to be recommended over a simpler one (timer noise).
constexpr double kRequiredGain = 0.03;
// Past this share of the device's memory a mode leaves too little headroom to recommend.
constexpr double kMemoryHeadroom = 0.9;

}  // namespace

ModeComparison compare_compile_modes(Task& task, const Settings& settings, const TrainingPlan& plan,
                                     int64_t timed_updates) {
  const bool convolutional = is_convolutional(task.model());
  const std::vector<Batch> batches = probe_batches(task, settings, plan, plan.accumulate * (timed_updates + 1));
  std::vector<ProbeMeasurement> measured;  // one per distinct configuration
  std::vector<CompileMode> measured_by;
  const auto measure = [&](const ExecutionConfig& config, CompileMode mode, std::string& note) -> ProbeMeasurement {
    for (size_t i = 0; i < measured.size(); ++i) {
      if (measured[i].config == config) {
        note = fmt::format("same configuration as {} on {}", to_string(measured_by[i]),
                           c10::DeviceTypeName(plan.device.type()));
        return measured[i];
      }
    }
    measured.push_back(probe_execution(task, settings, plan, config, batches, timed_updates));
    measured_by.push_back(mode);
    return measured.back();
  };

  ModeComparison comparison;
  for (const CompileMode mode :
       {CompileMode::none, CompileMode::standard, CompileMode::reduce_overhead, CompileMode::max_autotune}) {
    const ResolvedExecution resolved = resolve_execution(mode, plan.device, plan.amp_dtype.has_value(), convolutional);
    ModeProbe probe;
    probe.mode = mode;
    if (resolved.candidates.empty()) {
      probe.measurement = measure(resolved.config, mode, probe.note);
    } else {
      // What max-autotune would choose: the fastest candidate, simplest first.
      std::string ignored;
      std::string timings;
      for (const ExecutionConfig& candidate : resolved.candidates) {
        const ProbeMeasurement m = measure(candidate, mode, ignored);
        timings += fmt::format("{}{} {:.4f}", timings.empty() ? "" : ", ", candidate.describe(), m.seconds_per_update);
        if (probe.measurement.seconds_per_update == 0 ||
            m.seconds_per_update < probe.measurement.seconds_per_update * (1 - kRequiredGain)) {
          probe.measurement = m;
        }
      }
      probe.note = "fastest of: " + timings;
    }
    if (!resolved.unavailable.empty()) probe.note += (probe.note.empty() ? "" : "; ") + std::string("no CUDA graphs");
    comparison.modes.push_back(probe);
  }

  const double memory_limit = total_memory_mb(plan.device) * kMemoryHeadroom;
  const ModeProbe* best = nullptr;
  for (const ModeProbe& probe : comparison.modes) {
    if (memory_limit > 0 && probe.measurement.peak_memory_mb > memory_limit) continue;
    if (!best || probe.measurement.seconds_per_update < best->measurement.seconds_per_update * (1 - kRequiredGain)) {
      best = &probe;
    }
  }
  if (!best) {
    comparison.reason = "every mode's peak memory is above 90 % of the device's; lower batch and raise accumulate";
    return comparison;
  }
  comparison.recommended = best->mode;
  const double none_seconds = comparison.modes.front().measurement.seconds_per_update;
  comparison.reason = fmt::format("{:.3f} s/update, {:.2f}x none; the simplest mode within {:.0f} % of the fastest",
                                  best->measurement.seconds_per_update,
                                  none_seconds / std::max(best->measurement.seconds_per_update, 1e-12),
                                  kRequiredGain * 100);
  return comparison;
}

}  // namespace trainer
