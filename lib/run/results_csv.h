// results.csv: one row per epoch, or every val_interval updates (losses, metrics, lr, seconds,
// images/s, peak memory, the updates done).
#pragma once
#include <filesystem>
#include <optional>
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

// Where a resumed run's checkpoint stands: the rows made up to it stay in its results.csv.
struct ResumedRows {
  int64_t epochs = 0;  ///< completed epochs: what decides for a file without the updates column
  int64_t updates = 0;
};

class ResultsCsv : public TrainingObserver {
 public:
  // A resumed run keeps the rows up to `resumed`, each cell under its column's name (a file
  // written before a column existed gets it empty); later rows go.
  explicit ResultsCsv(std::filesystem::path path, std::optional<ResumedRows> resumed = std::nullopt);
  void on_start(const TrainingPlan& plan, const std::vector<std::string>& loss_names,
                const std::vector<std::string>& metric_names) override;
  void on_epoch_end(const EpochRecord& record) override;
  static std::vector<std::string> columns(const std::vector<std::string>& loss_names,
                                          const std::vector<std::string>& metric_names);

 private:
  // The kept rows of the file at path_, in `header`'s columns.
  std::vector<std::string> kept_rows(const std::vector<std::string>& header) const;
  std::filesystem::path path_;
  std::optional<ResumedRows> resumed_;
  std::vector<std::string> metric_names_;
  std::string text_;  // the file as written last
};

}  // namespace trainer
