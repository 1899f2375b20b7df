// compile=max-autotune (R1, R3): measures each candidate configuration over the first updates,
// keeps the fastest and stores the decision in the project's cache directory, keyed by model,
// input shape, device and LibTorch version, so that the next start of the same job reuses it.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "compile/execution_probe.h"
#include "dist/collective.h"
#include "models/trainable.h"

namespace trainer {

// What a decision depends on, as readable text: task, model, classes, parameter counts (all and
// trainable), micro-batch input shape, accumulate, AMP, device (name and CPU threads) and LibTorch
// version.
std::string autotune_key(const Task& task, const Settings& settings, const TrainingPlan& plan,
                         const ParameterCounts& parameters, c10::IntArrayRef input_shape);

// compile_cache_dir, or <project>/compile-cache when it is empty (<runs_dir>/compile-cache without
// a project; one cache per project, R29).
std::filesystem::path compile_cache_dir(const Settings& settings);

// A folder of decisions, one JSON file per key.
class AutotuneCache {
 public:
  explicit AutotuneCache(std::filesystem::path folder) : folder_(std::move(folder)) {}
  // The decision stored under `key`; nullopt when there is none. An unreadable file is reported
  // and treated as missing (it is rewritten after the next measurement).
  std::optional<ExecutionConfig> find(const std::string& key) const;
  void store(const std::string& key, const ExecutionConfig& decision,
             const std::vector<ProbeMeasurement>& measurements) const;
  std::filesystem::path file_for(const std::string& key) const;

 private:
  std::filesystem::path folder_;
};

// The fastest of `candidates` for this run (the cached decision when there is one). With several
// ranks every rank measures (SyncBatchNorm needs them together) and rank 0's choice is taken by all;
// only rank 0 writes the cache.
ExecutionConfig autotune_execution(Task& task, const Settings& settings, const TrainingPlan& plan,
                                   const std::vector<ExecutionConfig>& candidates, Collective& collective);

}  // namespace trainer
