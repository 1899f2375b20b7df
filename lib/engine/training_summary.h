// What a finished (or interrupted) training run reports to its caller.
#pragma once
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/step_executor.h"

namespace trainer {

struct TrainingSummary {
  int64_t epochs_run = 0;
  int64_t updates = 0;
  double best_fitness = 0;
  int64_t best_epoch = 0;
  int64_t best_updates = 0;  ///< updates done at the best validation
  std::vector<std::pair<std::string, double>> last_metrics;
  std::filesystem::path last_weights;
  std::filesystem::path best_weights;
  double seconds = 0;
  int64_t gradient_all_reduces = 0;  ///< updates whose gradients were summed over ranks (0 in one process)
  ExecutionReport execution;         ///< how the steps ran (executor, shapes, graph captures)
};

// Thrown by fit() when the stop check fired: the run saved a resumable last.pt first (rank 0).
class TrainingInterrupted : public std::runtime_error {
 public:
  TrainingInterrupted(std::filesystem::path checkpoint, int signal_number)
      : std::runtime_error("training interrupted"), checkpoint_(std::move(checkpoint)), signal_(signal_number) {}
  const std::filesystem::path& checkpoint() const { return checkpoint_; }
  int signal_number() const { return signal_; }  ///< what the stop check returned (on any rank)

 private:
  std::filesystem::path checkpoint_;
  int signal_;
};

}  // namespace trainer
