// Console progress: a live bar redrawn in place on a terminal; plain periodic lines otherwise
// (logs of jobs on servers), and nothing with --quiet.
#pragma once
#include <chrono>
#include <string>
#include <vector>

#include "engine/training_observer.h"

namespace trainer {

class ConsoleProgress : public TrainingObserver {
 public:
  enum class Style { bar, lines, quiet };
  static Style detect_style(bool quiet);
  explicit ConsoleProgress(Style style, double line_interval_seconds = 10.0);

  void on_start(const TrainingPlan& plan, const std::vector<std::string>& loss_names,
                const std::vector<std::string>& metric_names) override;
  void on_progress(const ProgressInfo& info) override;
  void on_validation_start(int64_t epoch) override;
  void on_epoch_end(const EpochRecord& record) override;

 private:
  std::string status_line(const ProgressInfo& info) const;
  Style style_;
  double line_interval_seconds_;
  std::chrono::steady_clock::time_point last_line_;
  std::vector<std::string> loss_names_;
  bool bar_open_ = false;
};

}  // namespace trainer
