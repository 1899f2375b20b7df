// Ultralytics' AutoBatch (utils/autobatch.py of 8.3/8.4) for `batch=-1` (60 % of the GPU's memory)
// and `batch=0.7` (that share): a training step is measured at batch 1, 2, 4, 8, 16 (to 64 on a GPU
// of 16 GiB or more), a line is fitted through the peak memory of those that fit, and the batch
// where it reaches the share of the free memory is taken, with Ultralytics' guards.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "config/settings.h"
#include "dist/collective.h"
#include "engine/task.h"

namespace trainer {

// What Ultralytics reads of the device, in GiB: free = total - (reserved + allocated).
struct DeviceMemory {
  double total_gb = 0;
  double in_use_gb = 0;  ///< reserved plus allocated
};

// A training step's peak device memory in GiB at a batch; nullopt where it ran out of memory.
using StepMemory = std::function<std::optional<double>(int64_t batch)>;

struct AutoBatchChoice {
  int64_t batch = 0;
  double predicted_share = 0;  ///< of the total memory, the fit's at `batch` plus what is in use
  bool fell_back = false;      ///< the default batch, as Ultralytics falls back (`why` says why)
  std::string why;
};

// Ultralytics' default batch, taken where AutoBatch cannot choose (the CPU, a failed fit).
inline constexpr int64_t kAutoBatchFallback = 16;

// The search alone, on any memory model: `share` of the free memory, at most `dataset_size`
// samples (0: no limit).
AutoBatchChoice choose_auto_batch(const DeviceMemory& memory, double share, int64_t dataset_size,
                                  const StepMemory& measure);

// settings.schedule.auto_batch's batch for this task on its device, measured with the execution
// probe's peak memory, logged as Ultralytics logs it. On the CPU: 16 with a warning. Several ranks:
// a UserError (each rank would choose alone), as Ultralytics refuses it for multi-GPU training.
int64_t auto_batch(Task& task, const Settings& settings, const WorldLayout& world);

}  // namespace trainer
