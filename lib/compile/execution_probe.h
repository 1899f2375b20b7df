// Measures a few real updates of the run's model under one execution configuration and then puts
// the model back as it was: max-autotune chooses with it (R1) and `trainer plan --probe` prints
// its figures side by side (R25).
#pragma once
#include <string>
#include <vector>

#include "config/settings.h"
#include "engine/execution_config.h"
#include "engine/task.h"
#include "engine/training_plan.h"

namespace trainer {

struct ProbeMeasurement {
  ExecutionConfig config;
  std::string executor;              ///< what ran the steps ("eager", "CUDA graphs …")
  double first_update_seconds = 0;   ///< the first update: graph captures and cuDNN's timing happen here
  /// Where the first update's time went: each micro-step, then the update, device work included.
  std::vector<double> first_update_parts;
  double seconds_per_update = 0;     ///< mean over the timed updates after it
  double images_per_second = 0;      ///< micro-batch samples of the timed updates per second
  double peak_memory_mb = 0;         ///< device memory on CUDA, the process's resident set on CPU
  /// The first update's summed loss and pre-clip gradient norm: every configuration starts from the
  /// same weights and batches, so these differ only by rounding unless a kernel computes wrongly.
  double first_update_loss = 0;
  double first_update_grad_norm = 0;
};

// The share of time a less simple configuration must save to be preferred: candidates come
// simplest first, and timer noise must not pick a layout or graphs for nothing.
constexpr double kClearlyFasterGain = 0.03;

// Whether `seconds` beats `best` by at least kClearlyFasterGain.
bool clearly_faster(double seconds, double best);

// How far (relative) a configuration's first-update loss and gradient norm may lie from the
// reference's. Another layout moves them by rounding: 1e-5 in fp32, up to 1.5 % of the gradient
// norm under bf16 autocast (ResNet18, demo recipe). The channels-last convolutions LibTorch 2.6
// computes wrongly on the CPU moved an fp32 ResNet18's loss by 0.3 % and its gradient norm by 7 %
// (64-px inputs), so in fp32 far smaller faults are caught than under autocast.
double same_numbers_tolerance(bool mixed_precision);

// Whether `measured` computed what `reference` did in its first update, within `tolerance`: a
// configuration that computes wrongly must not win on speed.
bool computes_alike(const ProbeMeasurement& measured, const ProbeMeasurement& reference, double tolerance);

// The first micro-batches of epoch 0 as training draws them, on the plan's device.
std::vector<Batch> probe_batches(Task& task, const Settings& settings, const TrainingPlan& plan,
                                int64_t count);

// One warm-up update and `timed_updates` more, each of plan.accumulate micro-batches taken in turn
// from `batches`, with fresh optimizer, scaler and EMA, in one process. Afterwards the model's
// weights, buffers, gradients, memory layout and the CPU generator are exactly as before.
ProbeMeasurement probe_execution(Task& task, const Settings& settings, const TrainingPlan& plan,
                                 const ExecutionConfig& config, const std::vector<Batch>& batches,
                                 int64_t timed_updates);

// Each config probed `rounds` times, the configs taking turns (A B A B), keeping each one's fastest
// round: whatever runs first in a process pays for warming caches, allocator and threads up, and
// taking turns spreads that and any background load over all of them. Logged as it goes (R30).
std::vector<ProbeMeasurement> probe_in_turns(Task& task, const Settings& settings, const TrainingPlan& plan,
                                             const std::vector<ExecutionConfig>& configs,
                                             const std::vector<Batch>& batches, int64_t timed_updates,
                                             int64_t rounds = 2);

}  // namespace trainer
