// Per-class curves over one shared axis with their all-classes mean, as Ultralytics draws them
// after a detection validation (PR_curve.png, F1_curve.png, P_curve.png, R_curve.png): the data a
// task reports with its metrics and the run's observers draw.
#pragma once
#include <string>
#include <vector>

namespace trainer {

struct CurveChart {
  std::string name;                          ///< file stem, e.g. "PR_curve"
  std::string title, x_label, y_label;
  std::vector<double> x;                     ///< the shared abscissa, increasing, within [0, 1]
  std::vector<std::string> labels;           ///< per class: its legend entry
  std::vector<std::vector<double>> curves;   ///< per class: y at each x, within [0, 1]
  std::vector<double> mean;                  ///< the all-classes curve, y at each x
  std::string mean_label;
};

}  // namespace trainer
