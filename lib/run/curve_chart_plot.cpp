#include "run/curve_chart_plot.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <opencv2/imgproc.hpp>

#include "io/image_file.h"
#include "plot/plot_style.h"

namespace trainer {
namespace {

// Ultralytics names each class in the legend below 21 classes and draws them grey beyond.
constexpr size_t kLegendClasses = 20;
constexpr int kLegendWidth = 300;
constexpr int kLegendRow = 22;
constexpr size_t kLabelLength = 30;
const cv::Scalar kGrid(225, 225, 225), kUnnamedClass(150, 150, 150);

void draw_curve(cv::Mat& canvas, const std::vector<double>& x, const std::vector<double>& y, const cv::Scalar& colour,
                int thickness) {
  const cv::Rect axes = curve_chart_axes();
  std::vector<cv::Point> points;
  for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
    points.emplace_back(axes.x + static_cast<int>(std::lround(std::clamp(x[i], 0.0, 1.0) * axes.width)),
                        axes.y + static_cast<int>(std::lround((1 - std::clamp(y[i], 0.0, 1.0)) * axes.height)));
  }
  if (points.size() > 1) cv::polylines(canvas, points, false, colour, thickness, cv::LINE_AA);
}

void draw_legend_entry(cv::Mat& canvas, int row, const std::string& label, const cv::Scalar& colour, int thickness) {
  const cv::Rect axes = curve_chart_axes();
  const cv::Point start(axes.x + axes.width + 24, axes.y + 8 + row * kLegendRow);
  cv::line(canvas, start, start + cv::Point(24, 0), colour, thickness, cv::LINE_AA);
  put_chart_text(canvas, shortened(label, kLabelLength), start + cv::Point(32, 5), 0.42);
}

}  // namespace

cv::Rect curve_chart_axes() { return {70, 50, 520, 520}; }

cv::Scalar curve_chart_mean_colour() { return {180, 119, 31}; }

void draw_curve_chart(const CurveChart& chart, const std::filesystem::path& path) {
  const cv::Rect axes = curve_chart_axes();
  cv::Mat canvas(axes.y + axes.height + 60, axes.x + axes.width + kLegendWidth, CV_8UC3, cv::Scalar(255, 255, 255));
  for (int tick = 0; tick <= 5; ++tick) {
    const int x = axes.x + axes.width * tick / 5, y = axes.y + axes.height - axes.height * tick / 5;
    if (tick > 0 && tick < 5) {
      cv::line(canvas, {x, axes.y}, {x, axes.y + axes.height}, kGrid, 1);
      cv::line(canvas, {axes.x, y}, {axes.x + axes.width, y}, kGrid, 1);
    }
    const std::string value = fmt::format("{:.1f}", tick / 5.0);
    put_chart_text(canvas, value, {x - 10, axes.y + axes.height + 18}, 0.4);
    put_chart_text(canvas, value, {axes.x - 30, y + 4}, 0.4);
  }
  cv::rectangle(canvas, axes, kChartInk, 1);
  put_chart_text(canvas, chart.title, {axes.x + (axes.width - chart_text_width(chart.title, 0.6)) / 2, 24}, 0.6);
  put_chart_text(canvas, chart.y_label, {axes.x - 60, axes.y - 18}, 0.45);
  put_chart_text(canvas, chart.x_label, {axes.x + axes.width / 2 - 30, axes.y + axes.height + 44}, 0.45);

  const bool named = chart.curves.size() <= kLegendClasses;
  for (size_t c = 0; c < chart.curves.size(); ++c) {
    const cv::Scalar colour = named ? class_colour(static_cast<int64_t>(c)) : kUnnamedClass;
    draw_curve(canvas, chart.x, chart.curves[c], colour, 2);
    if (named && c < chart.labels.size()) draw_legend_entry(canvas, static_cast<int>(c), chart.labels[c], colour, 2);
  }
  draw_curve(canvas, chart.x, chart.mean, curve_chart_mean_colour(), 3);
  draw_legend_entry(canvas, named ? static_cast<int>(chart.curves.size()) : 0, chart.mean_label,
                    curve_chart_mean_colour(), 3);
  write_image_atomically(canvas, path);
}

}  // namespace trainer
