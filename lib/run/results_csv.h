// results.csv: one row per epoch (losses, metrics, lr, seconds, images/s, peak memory).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "engine/training_observer.h"

namespace trainer {

// The rows of a results.csv: its header and the numbers of each row (NaN for empty cells).
struct ResultsTable {
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;
};
ResultsTable read_results(const std::filesystem::path& path);

class ResultsCsv : public TrainingObserver {
 public:
  // keep_epochs >= 0 (a resumed run): rows of epochs up to keep_epochs stay, later ones go.
  explicit ResultsCsv(std::filesystem::path path, int64_t keep_epochs = -1);
  void on_start(const TrainingPlan& plan, const std::vector<std::string>& loss_names,
                const std::vector<std::string>& metric_names) override;
  void on_epoch_end(const EpochRecord& record) override;
  static std::vector<std::string> columns(const std::vector<std::string>& loss_names,
                                          const std::vector<std::string>& metric_names);

 private:
  std::filesystem::path path_;
  int64_t keep_epochs_;
  std::vector<std::string> metric_names_;
  std::string text_;  // the file as written last
};

}  // namespace trainer
