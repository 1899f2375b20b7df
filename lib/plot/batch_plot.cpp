#include "plot/batch_plot.h"

#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>

#include "io/image_file.h"
#include "plot/plot_style.h"

namespace trainer {
namespace {

constexpr size_t kMostSamples = 16;
constexpr int kMostWidth = 1920;
// Small samples (text lines 32 px high) are enlarged to about this height, so captions leave them legible.
constexpr double kLeastCellHeight = 96;

// Hershey fonts draw ASCII only.
std::string printable(const std::string& text) {
  std::string out;
  for (unsigned char c : text) out += (c >= 32 && c < 127) ? static_cast<char>(c) : '?';
  return out;
}

}  // namespace

cv::Mat input_to_rgb(const at::Tensor& input, const std::vector<double>& mean, const std::vector<double>& std) {
  const at::Tensor planes = input.detach().to(at::kCPU, at::kFloat).contiguous();
  const int64_t channels = planes.size(0);
  TORCH_CHECK(channels == static_cast<int64_t>(mean.size()) && channels == static_cast<int64_t>(std.size()),
              "input_to_rgb: ", channels, " channels, ", mean.size(), " means");
  const int rows = static_cast<int>(planes.size(1)), cols = static_cast<int>(planes.size(2));
  cv::Mat rgb(rows, cols, CV_8UC3);
  const float* data = planes.data_ptr<float>();
  for (int y = 0; y < rows; ++y) {
    auto* out = rgb.ptr<cv::Vec3b>(y);
    for (int x = 0; x < cols; ++x) {
      for (int c = 0; c < 3; ++c) {
        const int64_t channel = std::min<int64_t>(c, channels - 1);
        const double value = data[(channel * rows + y) * cols + x] * std[channel] + mean[channel];
        out[x][c] = cv::saturate_cast<uint8_t>(std::lround(value * 255.0));
      }
    }
  }
  return rgb;
}

void draw_tag(cv::Mat& bgr, const std::string& text, cv::Point corner, const cv::Scalar& background, int thickness) {
  int baseline = 0;
  const cv::Size size = cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, 0.4 * thickness, thickness, &baseline);
  corner.y = std::max(size.height + 2, corner.y);
  cv::rectangle(bgr, corner - cv::Point(0, size.height + 2), corner + cv::Point(size.width, baseline - 2), background,
                cv::FILLED);
  cv::putText(bgr, text, corner - cv::Point(0, 1), cv::FONT_HERSHEY_SIMPLEX, 0.4 * thickness, cv::Scalar(255, 255, 255),
              thickness, cv::LINE_AA);
}

void draw_labelled_box(cv::Mat& bgr, const cv::Rect& box, const cv::Scalar& colour, const std::string& label,
                       int thickness) {
  cv::rectangle(bgr, box.tl(), box.br(), colour, thickness);
  draw_tag(bgr, label, box.tl(), colour, thickness);
}

void draw_batch_grid(const std::vector<PlottedSample>& samples, const std::filesystem::path& path) {
  const size_t count = std::min(samples.size(), kMostSamples);
  const int columns = std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(count)))));
  const int rows = std::max(1, static_cast<int>((count + columns - 1) / columns));
  int cell_width = 1, cell_height = 1;
  for (size_t i = 0; i < count; ++i) {
    cell_width = std::max(cell_width, samples[i].rgb.cols);
    cell_height = std::max(cell_height, samples[i].rgb.rows);
  }
  const double scale = std::min(std::max(1.0, kLeastCellHeight / cell_height),
                                static_cast<double>(kMostWidth) / (columns * cell_width));
  const int width = std::max(1, static_cast<int>(cell_width * scale));
  const int height = std::max(1, static_cast<int>(cell_height * scale));
  cv::Mat canvas(rows * height, columns * width, CV_8UC3, cv::Scalar(255, 255, 255));
  for (size_t i = 0; i < count; ++i) {
    const PlottedSample& sample = samples[i];
    const cv::Point origin(static_cast<int>(i % columns) * width, static_cast<int>(i / columns) * height);
    cv::Mat bgr;
    cv::cvtColor(sample.rgb, bgr, cv::COLOR_RGB2BGR);
    const cv::Size size(std::max(1, static_cast<int>(bgr.cols * scale)), std::max(1, static_cast<int>(bgr.rows * scale)));
    cv::resize(bgr, canvas(cv::Rect(origin, size)), size, 0, 0, cv::INTER_AREA);
    for (const PlottedBox& box : sample.boxes) {
      const cv::Point top_left(origin.x + static_cast<int>(std::lround(box.box.x * scale)),
                               origin.y + static_cast<int>(std::lround(box.box.y * scale)));
      const cv::Point bottom_right(origin.x + static_cast<int>(std::lround(box.box.br().x * scale)),
                                   origin.y + static_cast<int>(std::lround(box.box.br().y * scale)));
      draw_labelled_box(canvas, cv::Rect(top_left, bottom_right), class_colour(box.cls), printable(box.name), 1);
    }
    if (!sample.caption.empty()) {
      draw_tag(canvas, printable(sample.caption), origin + cv::Point(2, 14), cv::Scalar(80, 80, 80), 1);
    }
    cv::rectangle(canvas, cv::Rect(origin, cv::Size(width, height)), cv::Scalar(255, 255, 255), 1);
  }
  write_image_atomically(canvas, path);
}

}  // namespace trainer
