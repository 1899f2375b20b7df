// results.csv: one row per epoch (losses, metrics, lr, seconds, images/s, peak memory).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "engine/training_observer.h"

namespace trainer {

class ResultsCsv : public TrainingObserver {
 public:
  explicit ResultsCsv(std::filesystem::path path);
  void on_start(const TrainingPlan& plan, const std::vector<std::string>& loss_names,
                const std::vector<std::string>& metric_names) override;
  void on_epoch_end(const EpochRecord& record) override;
  static std::vector<std::string> columns(const std::vector<std::string>& loss_names,
                                          const std::vector<std::string>& metric_names);

 private:
  std::filesystem::path path_;
  std::vector<std::string> metric_names_;
};

}  // namespace trainer
