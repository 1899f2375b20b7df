// The files a validation leaves beside results.csv, or in `trainer val`'s folder: the confusion
// matrix (its CSV always, its picture with plots) and, with plots, the task's curve charts
// (detection's PR_curve.png, F1_curve.png, P_curve.png, R_curve.png).
#pragma once
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "engine/curve_chart.h"
#include "engine/metrics.h"
#include "engine/training_observer.h"

namespace trainer {

void save_validation_files(const std::optional<ConfusionMatrix>& confusion, const std::vector<CurveChart>& curves,
                           const std::filesystem::path& folder, bool plots);

// Saves the files of every validation during training (the last one's stay), like results.png.
class ValidationFiles : public TrainingObserver {
 public:
  ValidationFiles(std::filesystem::path folder, bool plots) : folder_(std::move(folder)), plots_(plots) {}
  void on_epoch_end(const EpochRecord& record) override;

 private:
  std::filesystem::path folder_;
  bool plots_;
};

}  // namespace trainer
