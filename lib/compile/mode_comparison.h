// `trainer plan --probe` (R25): a few real updates in each compile mode, step time and peak
// memory side by side, and the mode to use.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "compile/execution_probe.h"

namespace trainer {

struct ModeProbe {
  CompileMode mode = CompileMode::none;
  ProbeMeasurement measurement;
  std::string note;  ///< e.g. "same configuration as none on this device", "best of 2 candidates"
};

struct ModeComparison {
  std::vector<ModeProbe> modes;  ///< in the order asked for
  std::optional<CompileMode> recommended;  ///< nullopt when no mode fits the device's memory
  std::string reason;
};

// The model must be on plan.device. Configurations shared by several modes are measured once.
// `modes` empty: none, default, reduce-overhead and max-autotune. Probing one mode per process
// gives its first update from a cold start (caches such as cuDNN's algorithm choices carry over
// from one mode to the next within a process).
ModeComparison compare_compile_modes(Task& task, const Settings& settings, const TrainingPlan& plan,
                                     int64_t timed_updates, std::vector<CompileMode> modes = {});

}  // namespace trainer
