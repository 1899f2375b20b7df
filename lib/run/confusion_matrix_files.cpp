#include "run/confusion_matrix_files.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "io/image_file.h"
#include "plot/plot_style.h"
#include "util/atomic_file.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

// Up to this many classes the plot names them and prints every cell's share, as Ultralytics does.
constexpr size_t kLabelledClasses = 30;
constexpr int kGridSide = 640;
constexpr int kMargin = 40;

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

constexpr size_t kNameLength = 18;

// Text reading upwards whose end sits at the top of `area`.
void put_upward_text(cv::Mat& canvas, const std::string& text, cv::Rect area, double scale) {
  cv::Mat strip(area.width, area.height, CV_8UC3, cv::Scalar(255, 255, 255));
  const int baseline_y = area.width / 2 + 4;
  put_chart_text(strip, text, {std::max(area.height - chart_text_width(text, scale) - 4, 0), baseline_y}, scale, kChartInk);
  cv::Mat upright;
  cv::rotate(strip, upright, cv::ROTATE_90_COUNTERCLOCKWISE);
  upright.copyTo(canvas(area));
}

}  // namespace

std::string confusion_matrix_csv(const ConfusionMatrix& matrix) {
  std::string text = "predicted\\true";
  for (const auto& name : matrix.names) text += "," + csv_field(name);
  text += "\n";
  for (size_t predicted = 0; predicted < matrix.size(); ++predicted) {
    text += csv_field(matrix.names[predicted]);
    for (size_t truth = 0; truth < matrix.size(); ++truth) text += fmt::format(",{}", matrix.at(predicted, truth));
    text += "\n";
  }
  return text;
}

void draw_confusion_matrix(const ConfusionMatrix& matrix, const fs::path& path) {
  const int n = static_cast<int>(std::max<size_t>(matrix.size(), 1));
  const bool labelled = matrix.size() <= kLabelledClasses;
  const int cell = std::clamp(kGridSide / n, 2, 48);
  const double name_scale = std::min(0.45, std::max(cell / 60.0, 0.3));
  int labels = 0;  // room for the longest name, left of the grid and below it
  if (labelled) {
    for (const auto& name : matrix.names) labels = std::max(labels, chart_text_width(shortened(name, kNameLength), name_scale) + 16);
  }
  const cv::Rect grid(kMargin + labels, kMargin, cell * n, cell * n);
  const int title_width = chart_text_width("Confusion matrix (columns normalised)", 0.5) + kMargin;
  cv::Mat canvas(grid.y + grid.height + labels + kMargin, std::max(grid.x + grid.width + kMargin, title_width), CV_8UC3,
                 cv::Scalar(255, 255, 255));

  std::vector<int64_t> true_totals(matrix.size(), 0);
  for (size_t predicted = 0; predicted < matrix.size(); ++predicted) {
    for (size_t truth = 0; truth < matrix.size(); ++truth) true_totals[truth] += matrix.at(predicted, truth);
  }
  const double value_scale = std::min(0.4, cell / 90.0);
  for (size_t predicted = 0; predicted < matrix.size(); ++predicted) {
    for (size_t truth = 0; truth < matrix.size(); ++truth) {
      const int64_t count = matrix.at(predicted, truth);
      if (count == 0) continue;  // blank, so the pattern of confusions stands out
      const double share = static_cast<double>(count) / static_cast<double>(true_totals[truth]);
      const cv::Rect box(grid.x + static_cast<int>(truth) * cell, grid.y + static_cast<int>(predicted) * cell, cell,
                         cell);
      cv::rectangle(canvas, box, blue_shade(share), cv::FILLED);
      if (labelled && cell >= 28) {
        const std::string text = fmt::format("{:.2f}", share);
        put_chart_text(canvas, text, {box.x + (cell - chart_text_width(text, value_scale)) / 2, box.y + cell / 2 + 4},
                 value_scale, share > 0.5 ? cv::Scalar(255, 255, 255) : kChartInk);
      }
    }
  }
  cv::rectangle(canvas, grid, kChartInk, 1);
  put_chart_text(canvas, "Confusion matrix (columns normalised)", {kMargin / 2, kMargin - 14}, 0.5, kChartInk);
  if (labelled) {
    for (size_t i = 0; i < matrix.size(); ++i) {
      const std::string name = shortened(matrix.names[i], kNameLength);
      const int offset = static_cast<int>(i) * cell;
      put_chart_text(canvas, name, {grid.x - chart_text_width(name, name_scale) - 6, grid.y + offset + cell / 2 + 4}, name_scale,
               kChartInk);
      put_upward_text(canvas, name, {grid.x + offset, grid.y + grid.height + 4, cell, labels - 8}, name_scale);
    }
  }
  put_chart_text(canvas, "True", {grid.x + grid.width / 2 - 16, canvas.rows - 12}, 0.5, kChartInk);
  const int predicted_width = chart_text_width("Predicted", 0.5) + 8;
  put_upward_text(canvas, "Predicted",
                  {4, std::max(grid.y + (grid.height - predicted_width) / 2, 0), kMargin - 12, predicted_width}, 0.5);
  write_image_atomically(canvas, path);
}

void save_confusion_matrix(const ConfusionMatrix& matrix, const fs::path& folder, bool draw) {
  write_file_atomically(folder / "confusion_matrix.csv", confusion_matrix_csv(matrix));
  if (draw) draw_confusion_matrix(matrix, folder / "confusion_matrix.png");
}

}  // namespace trainer
