#include "plot/labels_plot.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <opencv2/imgproc.hpp>

#include "io/image_file.h"
#include "plot/plot_style.h"

namespace trainer {
namespace {

// Ultralytics lays at most this many boxes over one another.
constexpr size_t kShapesDrawn = 1000;

// The axes' frame, their names and the 0 and 1 ends of each.
void draw_axes(cv::Mat& canvas, int panel, const std::string& x_name, const std::string& y_name, bool unit_x) {
  const cv::Rect area = labels_plot_area(panel);
  cv::rectangle(canvas, area, kChartInk, 1);
  put_chart_text(canvas, y_name, {area.x - 45, area.y - 10}, 0.45);
  put_chart_text(canvas, x_name, {area.x + (area.width - chart_text_width(x_name, 0.45)) / 2, area.y + area.height + 38}, 0.45);
  if (unit_x) {
    put_chart_text(canvas, "0", {area.x - 4, area.y + area.height + 16}, 0.4);
    put_chart_text(canvas, "1", {area.x + area.width - 4, area.y + area.height + 16}, 0.4);
  }
}

void draw_class_counts(cv::Mat& canvas, const std::vector<YoloBox>& boxes, const std::vector<std::string>& names) {
  const cv::Rect area = labels_plot_area(0);
  std::vector<int64_t> counts(std::max<size_t>(names.size(), 1), 0);
  for (const YoloBox& box : boxes) {
    if (box.cls >= 0 && static_cast<size_t>(box.cls) < counts.size()) ++counts[static_cast<size_t>(box.cls)];
  }
  const int64_t most = std::max<int64_t>(*std::max_element(counts.begin(), counts.end()), 1);
  const double bar = static_cast<double>(area.width) / static_cast<double>(counts.size());
  for (size_t c = 0; c < counts.size(); ++c) {
    const int left = area.x + static_cast<int>(std::lround(c * bar)), right = area.x + static_cast<int>(std::lround((c + 1) * bar));
    const int height = static_cast<int>(std::lround(static_cast<double>(counts[c]) / most * area.height));
    if (height > 0) {
      cv::rectangle(canvas, cv::Rect(left + 1, area.y + area.height - height, std::max(right - left - 2, 1), height),
                    class_colour(static_cast<int64_t>(c)), cv::FILLED);
    }
    // Names under their bars where at least a few letters fit.
    const std::string name = c < names.size() ? names[c] : "";
    size_t letters = name.size();
    while (letters > 0 && chart_text_width(name.substr(0, letters), 0.35) > right - left - 2) --letters;
    if (letters >= 3) put_chart_text(canvas, name.substr(0, letters), {left + 1, area.y + area.height + 16}, 0.35);
  }
  draw_axes(canvas, 0, "classes", "instances", false);
  put_chart_text(canvas, std::to_string(most), {area.x - 45, area.y + 10}, 0.4);
  put_chart_text(canvas, "0", {area.x - 14, area.y + area.height}, 0.4);
}

// Up to kShapesDrawn boxes centred on one point at their size relative to the image.
void draw_box_shapes(cv::Mat& canvas, const std::vector<YoloBox>& boxes) {
  const cv::Rect area = labels_plot_area(1);
  cv::Mat shapes = canvas(area);
  for (size_t i = 0; i < std::min(boxes.size(), kShapesDrawn); ++i) {
    const YoloBox& box = boxes[i];
    const cv::Point2d half(box.w * area.width / 2, box.h * area.height / 2), centre(area.width / 2.0, area.height / 2.0);
    cv::rectangle(shapes, cv::Point(centre - half), cv::Point(centre + half), class_colour(box.cls), 1, cv::LINE_AA);
  }
  cv::rectangle(canvas, area, kChartInk, 1);
  put_chart_text(canvas, fmt::format("box shapes ({} of {})", std::min(boxes.size(), kShapesDrawn), boxes.size()),
           {area.x, area.y - 10}, 0.45);
}

// A 2-D histogram of two coordinates within [0, 1], y upwards.
void draw_density(cv::Mat& canvas, int panel, const std::vector<cv::Point2f>& points, const std::string& x_name,
                  const std::string& y_name) {
  const cv::Rect area = labels_plot_area(panel);
  const auto bin = [](float value) { return std::clamp(static_cast<int>(std::floor(value * kLabelsBins)), 0, kLabelsBins - 1); };
  std::vector<int64_t> counts(kLabelsBins * kLabelsBins, 0);
  for (const cv::Point2f& point : points) ++counts[static_cast<size_t>(bin(point.y) * kLabelsBins + bin(point.x))];
  const int64_t most = std::max<int64_t>(*std::max_element(counts.begin(), counts.end()), 1);
  for (int row = 0; row < kLabelsBins; ++row) {
    for (int column = 0; column < kLabelsBins; ++column) {
      const int64_t count = counts[static_cast<size_t>(row * kLabelsBins + column)];
      if (count == 0) continue;
      const int left = area.x + column * area.width / kLabelsBins, right = area.x + (column + 1) * area.width / kLabelsBins;
      const int top = area.y + area.height - (row + 1) * area.height / kLabelsBins;
      const int bottom = area.y + area.height - row * area.height / kLabelsBins;
      cv::rectangle(canvas, cv::Rect(left, top, right - left, bottom - top),
                    blue_shade(static_cast<double>(count) / static_cast<double>(most)), cv::FILLED);
    }
  }
  draw_axes(canvas, panel, x_name, y_name, true);
  put_chart_text(canvas, "1", {area.x - 14, area.y + 10}, 0.4);
}

}  // namespace

cv::Rect labels_plot_area(int panel) {
  const cv::Point origin((panel % 2) * kLabelsPanel, (panel / 2) * kLabelsPanel);
  return {origin.x + 55, origin.y + 30, kLabelsPanel - 75, kLabelsPanel - 80};
}

void draw_labels(const std::vector<YoloBox>& boxes, const std::vector<std::string>& names,
                 const std::filesystem::path& path) {
  cv::Mat canvas(2 * kLabelsPanel, 2 * kLabelsPanel, CV_8UC3, cv::Scalar(255, 255, 255));
  draw_class_counts(canvas, boxes, names);
  draw_box_shapes(canvas, boxes);
  std::vector<cv::Point2f> centres, sizes;
  for (const YoloBox& box : boxes) {
    centres.emplace_back(box.cx, box.cy);
    sizes.emplace_back(box.w, box.h);
  }
  draw_density(canvas, 2, centres, "x", "y");
  draw_density(canvas, 3, sizes, "width", "height");
  write_image_atomically(canvas, path);
}

}  // namespace trainer
