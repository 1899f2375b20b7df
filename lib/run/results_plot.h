// results.png: one small line chart per loss, metric and the LR, redrawn after every results row,
// against epochs (fractional where rows fall inside an epoch).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "engine/training_observer.h"

namespace trainer {

struct Series {
  std::string name;
  std::vector<double> x;
  std::vector<double> y;
};

// Draws the series as a grid of charts into a PNG file.
void draw_charts(const std::vector<Series>& series, const std::filesystem::path& path);

class ResultsPlot : public TrainingObserver {
 public:
  // history: a results.csv whose rows start the curves (a resumed run).
  explicit ResultsPlot(std::filesystem::path path, std::filesystem::path history = {});
  void on_start(const TrainingPlan& plan, const std::vector<std::string>& loss_names,
                const std::vector<std::string>& metric_names) override;
  void on_epoch_end(const EpochRecord& record) override;

 private:
  Series& series(const std::string& name);
  std::filesystem::path path_;
  std::filesystem::path history_;
  std::vector<std::string> loss_names_;
  std::vector<Series> series_;
  double updates_per_epoch_ = 1;
};

}  // namespace trainer
