#include "data/ocr/contrast_stretch.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <cmath>

namespace trainer {
namespace {

// numpy.percentile(values, q) (linear interpolation between the ranks) from a histogram of uint8 values.
double percentile(const std::array<int64_t, 256>& histogram, int64_t count, double q) {
  const double position = static_cast<double>(count - 1) * q / 100.0;
  const auto lower_rank = static_cast<int64_t>(std::floor(position));
  auto value_at = [&](int64_t rank) {
    int64_t seen = 0;
    for (int level = 0; level < 256; ++level) {
      seen += histogram[static_cast<size_t>(level)];
      if (seen > rank) return static_cast<double>(level);
    }
    return 255.0;
  };
  const double lower = value_at(lower_rank);
  const double upper = lower_rank + 1 < count ? value_at(lower_rank + 1) : lower;
  return lower + (position - static_cast<double>(lower_rank)) * (upper - lower);
}

}  // namespace

cv::Mat stretch_contrast(const cv::Mat& image, double target) {
  if (target <= 0.0) return image;
  cv::Mat grey;
  if (image.channels() == 3) {
    cv::cvtColor(image, grey, cv::COLOR_RGB2GRAY);
  } else {
    grey = image.clone();
  }
  std::array<int64_t, 256> histogram{};
  for (int y = 0; y < grey.rows; ++y) {
    const uint8_t* row = grey.ptr<uint8_t>(y);
    for (int x = 0; x < grey.cols; ++x) ++histogram[row[x]];
  }
  const int64_t count = static_cast<int64_t>(grey.total());
  if (count > 0) {
    const double high = percentile(histogram, count, 90.0);
    const double low = percentile(histogram, count, 10.0);
    // An all-black line: 0 / 0 is NaN in numpy, never below the target, so it stays as it is.
    const bool black = high + low == 0.0;
    if (!black && (high - low) / (high + low) < target) {
      // One grey level: numpy's 200 / 0 is infinity and every pixel clips to white.
      const double ratio = high == low ? HUGE_VAL : 200.0 / (high - low);
      std::array<uint8_t, 256> stretched{};
      for (int level = 0; level < 256; ++level) {
        const double value = (level - low + 25.0) * ratio;  // numpy's order of operations
        stretched[static_cast<size_t>(level)] = static_cast<uint8_t>(std::min(255.0, std::max(0.0, value)));
      }
      grey.forEach<uint8_t>([&](uint8_t& pixel, const int*) { pixel = stretched[pixel]; });
    }
  }
  if (image.channels() != 3) return grey;
  cv::Mat rgb;
  cv::cvtColor(grey, rgb, cv::COLOR_GRAY2RGB);
  return rgb;
}

}  // namespace trainer
