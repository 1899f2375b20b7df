#include "compile/mode_comparison.h"

#include <fmt/format.h>

#include <iterator>

#include "util/memory.h"

namespace trainer {
namespace {

// Past this share of the device's memory a mode leaves too little headroom to recommend.
constexpr double kMemoryHeadroom = 0.9;

// Modes often resolve to the same configuration on a device; each configuration is measured once.
struct ProbeConfigs {
  std::vector<ResolvedExecution> resolved;  // one per mode
  std::vector<ExecutionConfig> configs;     // distinct, in the order the modes first need them
  std::vector<CompileMode> first_user;      // per configuration, the mode that first needed it

  size_t index_of(const ExecutionConfig& config) const {
    for (size_t i = 0; i < configs.size(); ++i) {
      if (configs[i] == config) return i;
    }
    return configs.size();
  }
};

ProbeConfigs configs_to_probe(const std::vector<CompileMode>& modes, const TrainingPlan& plan, bool convolutional) {
  ProbeConfigs probes;
  for (const CompileMode mode : modes) {
    probes.resolved.push_back(resolve_execution(mode, plan.device, plan.amp_dtype.has_value(), convolutional));
    std::vector<ExecutionConfig> needed = probes.resolved.back().candidates;
    if (needed.empty()) needed.push_back(probes.resolved.back().config);
    for (const ExecutionConfig& config : needed) {
      if (probes.index_of(config) == probes.configs.size()) {
        probes.configs.push_back(config);
        probes.first_user.push_back(mode);
      }
    }
  }
  return probes;
}

// What max-autotune would choose: the fastest candidate, simplest first.
void pick_fastest_candidate(ModeProbe& probe, const ResolvedExecution& resolved, const ProbeConfigs& probes,
                            const std::vector<ProbeMeasurement>& measured, double tolerance) {
  std::string timings;
  for (const ExecutionConfig& candidate : resolved.candidates) {
    const ProbeMeasurement& candidate_measurement = measured[probes.index_of(candidate)];
    timings += fmt::format("{}{} {:.4f}", timings.empty() ? "" : ", ", candidate.describe(),
                           candidate_measurement.seconds_per_update);
    if (!computes_alike(candidate_measurement, measured.front(), tolerance)) {
      timings += " (computes other numbers: left out)";
      continue;
    }
    if (probe.measurement.seconds_per_update == 0 ||
        clearly_faster(candidate_measurement.seconds_per_update, probe.measurement.seconds_per_update)) {
      probe.measurement = candidate_measurement;
    }
  }
  probe.note = "fastest of: " + timings;
}

ModeProbe probe_of_mode(CompileMode mode, const ResolvedExecution& resolved, const ProbeConfigs& probes,
                        const std::vector<ProbeMeasurement>& measured, double tolerance, const TrainingPlan& plan) {
  ModeProbe probe;
  probe.mode = mode;
  if (resolved.candidates.empty()) {
    const size_t i = probes.index_of(resolved.config);
    probe.measurement = measured[i];
    if (probes.first_user[i] != mode) {
      probe.note = fmt::format("same configuration as {} on {}", to_string(probes.first_user[i]),
                               c10::DeviceTypeName(plan.device.type()));
    }
  } else {
    pick_fastest_candidate(probe, resolved, probes, measured, tolerance);
  }
  if (!resolved.unavailable.empty()) probe.note += (probe.note.empty() ? "" : "; ") + std::string("no CUDA graphs");
  return probe;
}

// Modes come simplest first, and a later one is chosen over an earlier one only when clearly faster.
void recommend(ModeComparison& comparison, const ProbeMeasurement& reference, double tolerance,
               const TrainingPlan& plan) {
  const double memory_limit = total_memory_mb(plan.device) * kMemoryHeadroom;
  const ModeProbe* best = nullptr;
  for (const ModeProbe& probe : comparison.modes) {
    if (memory_limit > 0 && probe.measurement.peak_memory_mb > memory_limit) continue;
    if (!computes_alike(probe.measurement, reference, tolerance)) continue;
    if (!best || clearly_faster(probe.measurement.seconds_per_update, best->measurement.seconds_per_update)) {
      best = &probe;
    }
  }
  if (!best) {
    comparison.reason = "every mode's peak memory is above 90 % of the device's; lower batch and raise accumulate";
    return;
  }
  comparison.recommended = best->mode;
  const double none_seconds = comparison.modes.front().measurement.seconds_per_update;
  comparison.reason = fmt::format("{:.3f} s/update, {:.2f}x none; the simplest mode within {:.0f} % of the fastest",
                                  best->measurement.seconds_per_update,
                                  none_seconds / std::max(best->measurement.seconds_per_update, 1e-12),
                                  kClearlyFasterGain * 100);
}

}  // namespace

ModeComparison compare_compile_modes(Task& task, const Settings& settings, const TrainingPlan& plan,
                                     int64_t timed_updates, std::vector<CompileMode> modes) {
  const bool convolutional = is_convolutional(task.model());
  if (modes.empty()) modes.assign(std::begin(kCompileModes), std::end(kCompileModes));
  const ProbeConfigs probes = configs_to_probe(modes, plan, convolutional);
  const std::vector<Batch> batches = probe_batches(task, settings, plan, plan.accumulate * (timed_updates + 1));
  const std::vector<ProbeMeasurement> measured =
      probe_in_turns(task, settings, plan, probes.configs, batches, timed_updates);

  const double tolerance = same_numbers_tolerance(plan.amp_dtype.has_value());
  ModeComparison comparison;
  for (size_t m = 0; m < modes.size(); ++m) {
    comparison.modes.push_back(probe_of_mode(modes[m], probes.resolved[m], probes, measured, tolerance, plan));
  }
  recommend(comparison, measured.front(), tolerance, plan);
  return comparison;
}

}  // namespace trainer
