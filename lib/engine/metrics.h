// What a task's validation reports to the engine, and the engine to its observers: named values,
// the fitness that picks best.pt, and the pictures' data where the task has them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/curve_chart.h"

namespace trainer {

// Which class the model says against which class is true, over a validation pass: Ultralytics'
// ConfusionMatrix (rows predicted, columns true; detection adds a background row and column).
struct ConfusionMatrix {
  std::vector<std::string> names;  ///< labels of rows and columns; detection's last is "background"
  std::vector<int64_t> counts;     ///< row-major [predicted][true], names.size()² entries

  size_t size() const { return names.size(); }
  int64_t at(size_t predicted, size_t truth) const { return counts.at(predicted * size() + truth); }
};

struct Metrics {
  std::vector<std::pair<std::string, double>> values;
  double fitness = 0;  ///< larger is better; picks best.pt and drives patience
  std::vector<std::string> details;  ///< lines `trainer val` prints below the values (e.g. per-class AP)
  std::optional<ConfusionMatrix> confusion;  ///< where the task has classes
  std::vector<CurveChart> curves;            ///< where the task has some (detection's PR, F1, P and R)
};

}  // namespace trainer
