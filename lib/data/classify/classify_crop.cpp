#include "data/classify/classify_crop.h"

#include <algorithm>
#include <cmath>

namespace trainer {
namespace {

constexpr int kAttempts = 10;

// A box of about `area` pixels whose width/height is drawn log-uniformly, so that an aspect and
// its inverse (3/4 and 4/3) are equally likely.
cv::Size draw_box(double area, double min_aspect, double max_aspect, SplitMix64& rng) {
  const double aspect = std::exp(rng.uniform(std::log(min_aspect), std::log(max_aspect)));
  return {int(std::lround(std::sqrt(area * aspect))), int(std::lround(std::sqrt(area / aspect)))};
}

}  // namespace

cv::Rect random_resized_crop(cv::Size image, double min_area, SplitMix64& rng) {
  constexpr double kMinAspect = 3.0 / 4.0, kMaxAspect = 4.0 / 3.0;
  const double area = double(image.area());
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    const cv::Size box = draw_box(area * rng.uniform(min_area, 1.0), kMinAspect, kMaxAspect, rng);
    if (box.width < 1 || box.height < 1 || box.width > image.width || box.height > image.height) continue;
    const int x = int(rng.below(uint64_t(image.width - box.width + 1)));
    const int y = int(rng.below(uint64_t(image.height - box.height + 1)));
    return {x, y, box.width, box.height};
  }
  // Too elongated an image for every draw: its largest centred box of an allowed aspect.
  const double aspect = std::clamp(double(image.width) / image.height, kMinAspect, kMaxAspect);
  cv::Size box = image;
  if (double(image.width) / image.height > aspect) {
    box.width = std::max(1, int(std::lround(image.height * aspect)));
  } else {
    box.height = std::max(1, int(std::lround(image.width / aspect)));
  }
  return {(image.width - box.width) / 2, (image.height - box.height) / 2, box.width, box.height};
}

cv::Rect centre_crop(cv::Size image, double fraction) {
  const int side = std::max(1, int(std::lround(std::min(image.width, image.height) * fraction)));
  return {(image.width - side) / 2, (image.height - side) / 2, side, side};
}

cv::Rect random_erasing_box(int64_t side, SplitMix64& rng, int64_t boxes) {
  const double area = double(side * side) / double(boxes);
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    // draw_box gives width/height; erasing's aspect is height/width, hence the swap.
    const cv::Size box = draw_box(area * rng.uniform(0.02, 1.0 / 3.0), 0.3, 3.3, rng);
    const int width = box.height, height = box.width;
    if (width < 1 || height < 1 || width >= side || height >= side) continue;
    const int x = int(rng.below(uint64_t(side - width + 1)));
    const int y = int(rng.below(uint64_t(side - height + 1)));
    return {x, y, width, height};
  }
  return {};
}

}  // namespace trainer
