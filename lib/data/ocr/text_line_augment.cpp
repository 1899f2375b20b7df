#include "data/ocr/text_line_augment.h"

#include <opencv2/imgproc.hpp>

#include <cmath>

namespace trainer {
namespace {

// A smooth random field in [-1, 1]: white noise blurred, then rescaled so its largest value is 1
// (blurring alone would shrink it by an amount that depends on the image size).
cv::Mat smooth_field(cv::Size size, double sigma, SplitMix64& rng) {
  cv::Mat field(size, CV_32F);
  for (int y = 0; y < size.height; ++y) {
    float* row = field.ptr<float>(y);
    for (int x = 0; x < size.width; ++x) row[x] = static_cast<float>(rng.uniform(-1.0, 1.0));
  }
  cv::GaussianBlur(field, field, cv::Size(0, 0), sigma, sigma, cv::BORDER_REFLECT);
  double low = 0, high = 0;
  cv::minMaxLoc(field, &low, &high);
  const double peak = std::max(std::abs(low), std::abs(high));
  if (peak > 0) field /= peak;
  return field;
}

}  // namespace

cv::Mat augment_text_line(const cv::Mat& line, const TextLineAugment& augment, SplitMix64& rng) {
  const double angle = rng.uniform(-augment.degrees, augment.degrees) * CV_PI / 180.0;
  const double slant = std::tan(rng.uniform(-augment.shear, augment.shear) * CV_PI / 180.0);
  // remap pulls each output pixel from the source, so the maps hold the inverse transform:
  // source = centre + (R(angle) * Shear(slant))^-1 * (output - centre) + displacement.
  const cv::Matx22d forward = cv::Matx22d(std::cos(angle), -std::sin(angle), std::sin(angle), std::cos(angle)) *
                              cv::Matx22d(1, slant, 0, 1);
  const cv::Matx22d inverse = forward.inv();
  const double cx = (line.cols - 1) / 2.0, cy = (line.rows - 1) / 2.0;
  cv::Mat dx, dy;
  if (augment.elastic > 0) {
    // Smooth over about a sixth of the line height: strokes bend without breaking apart.
    const double sigma = std::max(2.0, line.rows / 6.0);
    dx = smooth_field(line.size(), sigma, rng) * augment.elastic;
    dy = smooth_field(line.size(), sigma, rng) * augment.elastic;
  }
  cv::Mat map_x(line.size(), CV_32F), map_y(line.size(), CV_32F);
  for (int y = 0; y < line.rows; ++y) {
    float* mx = map_x.ptr<float>(y);
    float* my = map_y.ptr<float>(y);
    for (int x = 0; x < line.cols; ++x) {
      const cv::Vec2d source = inverse * cv::Vec2d(x - cx, y - cy);
      mx[x] = static_cast<float>(cx + source[0] + (dx.empty() ? 0.0 : dx.at<float>(y, x)));
      my[x] = static_cast<float>(cy + source[1] + (dy.empty() ? 0.0 : dy.at<float>(y, x)));
    }
  }
  cv::Mat out;
  cv::remap(line, out, map_x, map_y, cv::INTER_LINEAR, cv::BORDER_REPLICATE);
  return out;
}

}  // namespace trainer
