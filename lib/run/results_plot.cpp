#include "run/results_plot.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <opencv2/imgproc.hpp>

#include "io/image_file.h"
#include "plot/plot_style.h"
#include "run/results_csv.h"

namespace trainer {
namespace {

constexpr int kPanelWidth = 420;
constexpr int kPanelHeight = 300;
constexpr int kColumns = 3;
constexpr int kMargin = 60;

void draw_panel(cv::Mat& canvas, const Series& series, cv::Rect area) {
  const cv::Scalar line(200, 110, 30), grid(225, 225, 225);
  put_chart_text(canvas, series.name, {area.x + kMargin, area.y + 22}, 0.55);
  const cv::Rect plot(area.x + kMargin, area.y + 34, area.width - kMargin - 14, area.height - 34 - 30);
  cv::rectangle(canvas, plot, kChartInk, 1);
  std::vector<double> finite;
  for (double value : series.y) {
    if (std::isfinite(value)) finite.push_back(value);
  }
  if (finite.empty()) return;
  double low = *std::min_element(finite.begin(), finite.end());
  double high = *std::max_element(finite.begin(), finite.end());
  if (high - low < 1e-12) {
    low -= 0.5 * std::max(std::abs(low), 1e-6);
    high += 0.5 * std::max(std::abs(high), 1e-6);
  }
  const double x_low = series.x.front();
  const double x_high = std::max(series.x.back(), x_low + 1.0);
  const auto to_pixel = [&](double x, double y) {
    return cv::Point(plot.x + static_cast<int>((x - x_low) / (x_high - x_low) * plot.width),
                     plot.y + plot.height - static_cast<int>((y - low) / (high - low) * plot.height));
  };
  for (int i = 1; i < 4; ++i) {
    const int y = plot.y + plot.height * i / 4;
    cv::line(canvas, {plot.x + 1, y}, {plot.x + plot.width - 1, y}, grid, 1);
  }
  for (size_t i = 0; i < series.y.size(); ++i) {
    if (!std::isfinite(series.y[i])) continue;
    const cv::Point point = to_pixel(series.x[i], series.y[i]);
    cv::circle(canvas, point, 3, line, cv::FILLED, cv::LINE_AA);
    if (i > 0 && std::isfinite(series.y[i - 1])) {
      cv::line(canvas, to_pixel(series.x[i - 1], series.y[i - 1]), point, line, 2, cv::LINE_AA);
    }
  }
  const auto label = [&](double value, int y) {
    put_chart_text(canvas, fmt::format("{:.3g}", value), {area.x + 2, y}, 0.38);
  };
  label(high, plot.y + 10);
  label(low, plot.y + plot.height);
  put_chart_text(canvas, fmt::format("epoch {:g} .. {:g}", x_low, series.x.back()), {plot.x, plot.y + plot.height + 20},
                 0.4);
}

}  // namespace

void draw_charts(const std::vector<Series>& series, const std::filesystem::path& path) {
  const int rows = static_cast<int>((series.size() + kColumns - 1) / kColumns);
  cv::Mat canvas(std::max(rows, 1) * kPanelHeight, kColumns * kPanelWidth, CV_8UC3, cv::Scalar(255, 255, 255));
  for (size_t i = 0; i < series.size(); ++i) {
    const cv::Rect area(static_cast<int>(i % kColumns) * kPanelWidth, static_cast<int>(i / kColumns) * kPanelHeight,
                        kPanelWidth, kPanelHeight);
    if (!series[i].x.empty()) draw_panel(canvas, series[i], area);
  }
  write_image_atomically(canvas, path);
}

ResultsPlot::ResultsPlot(std::filesystem::path path, std::filesystem::path history)
    : path_(std::move(path)), history_(std::move(history)) {}

void ResultsPlot::on_start(const TrainingPlan& plan, const std::vector<std::string>& loss_names,
                           const std::vector<std::string>& metric_names) {
  series_.clear();
  updates_per_epoch_ = static_cast<double>(std::max<int64_t>(plan.updates_per_epoch, 1));
  loss_names_ = loss_names;
  for (const auto& name : loss_names) series_.push_back({"train/" + name, {}, {}});
  for (const auto& name : metric_names) series_.push_back({name, {}, {}});
  series_.push_back({"lr", {}, {}});
  if (history_.empty()) return;
  const ResultsTable table = read_results(history_);
  const auto column_of = [&](const std::string& name) {
    return static_cast<size_t>(std::find(table.header.begin(), table.header.end(), name) - table.header.begin());
  };
  // Rows from before the updates column count whole epochs.
  const size_t updates = column_of("updates");
  const size_t epoch = column_of("epoch");
  for (auto& item : series_) {
    const size_t index = column_of(item.name);
    for (const auto& row : table.rows) {
      if (index >= row.size()) continue;
      item.x.push_back(updates < row.size() ? row[updates] / updates_per_epoch_ : row.at(epoch));
      item.y.push_back(row[index]);
    }
  }
}

Series& ResultsPlot::series(const std::string& name) {
  for (auto& item : series_) {
    if (item.name == name) return item;
  }
  series_.push_back({name, {}, {}});
  return series_.back();
}

void ResultsPlot::on_epoch_end(const EpochRecord& record) {
  // In epochs, fractional for the rows of val_interval and the partial last epoch of updates=.
  const double epoch = static_cast<double>(record.updates) / updates_per_epoch_;
  for (size_t i = 0; i < record.losses.size() && i < loss_names_.size(); ++i) {
    Series& target = series("train/" + loss_names_[i]);
    target.x.push_back(epoch);
    target.y.push_back(record.losses[i]);
  }
  for (const auto& [name, value] : record.metrics) {
    Series& target = series(name);
    target.x.push_back(epoch);
    target.y.push_back(value);
  }
  Series& lr = series("lr");
  lr.x.push_back(epoch);
  lr.y.push_back(record.lr);
  draw_charts(series_, path_);
}

}  // namespace trainer
