// Logging, CSV, plots and progress observe a few named events instead of living in the loop.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/curve_chart.h"
#include "engine/metrics.h"
#include "engine/training_plan.h"

namespace trainer {

struct ProgressInfo {
  int64_t epoch = 0;              ///< 1-based
  int64_t epochs = 0;
  int64_t update = 0;             ///< updates done in this epoch
  int64_t updates_per_epoch = 0;  ///< of this epoch (the last one of an `updates=` run may be shorter)
  std::vector<double> losses;     ///< per-update loss parts since the previous report
  double lr = 0;
  double grad_norm = 0;
  double images_per_second = 0;
  double updates_per_second = 0;
  double memory_mb = 0;
  double elapsed_seconds = 0;     ///< in this epoch
  double eta_seconds = 0;         ///< for this epoch
};

// One row of results.csv: made at each epoch end, or every `val_interval` updates and at the end.
struct EpochRecord {
  int64_t epoch = 0;           ///< 1-based: the epoch the row was made in
  int64_t updates = 0;         ///< optimizer updates done when the row was made
  std::vector<double> losses;  ///< training loss parts, per-sample mean since the previous row
  std::vector<std::pair<std::string, double>> metrics;
  std::optional<ConfusionMatrix> confusion;  ///< of this epoch's validation, where the task has one
  std::vector<CurveChart> curves;            ///< of this epoch's validation, where the task has some
  double lr = 0;                             ///< weight-group LR of the latest update
  double grad_norm = 0;                      ///< mean pre-clip total grad norm since the previous row
  int64_t skipped_updates = 0;
  double seconds = 0;  ///< training time since the previous row
  double images_per_second = 0;
  double peak_memory_mb = 0;
  int64_t input_shapes = 0;       ///< distinct micro-batch shapes met so far in this process (R2)
  int64_t graph_captures = 0;     ///< CUDA graphs captured so far in this process
  double fitness = 0;
  bool best = false;
};

class TrainingObserver {
 public:
  virtual ~TrainingObserver() = default;
  virtual void on_start(const TrainingPlan& plan, const std::vector<std::string>& loss_names,
                        const std::vector<std::string>& metric_names) {}
  virtual void on_progress(const ProgressInfo& info) {}
  virtual void on_validation_start(int64_t epoch) {}
  virtual void on_epoch_end(const EpochRecord& record) {}
};

}  // namespace trainer
