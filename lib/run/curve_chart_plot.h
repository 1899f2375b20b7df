// PR_curve.png, F1_curve.png, P_curve.png and R_curve.png: a CurveChart drawn as Ultralytics plots
// it, each class a thin line (named in the legend up to 20 classes, grey beyond) under the thick
// all-classes curve, both axes 0 to 1.
#pragma once
#include <filesystem>

#include <opencv2/core/types.hpp>

#include "engine/curve_chart.h"

namespace trainer {

// The pixel rectangle of the axes in every drawn chart, whose corners are (0, 1) top-left and
// (1, 0) bottom-right in chart units.
cv::Rect curve_chart_axes();

// The all-classes curve's colour (BGR; matplotlib's first colour, as in Ultralytics' plots).
cv::Scalar curve_chart_mean_colour();

void draw_curve_chart(const CurveChart& chart, const std::filesystem::path& path);

}  // namespace trainer
