#include "data/classify/color_jitter.h"

#include <algorithm>
#include <utility>

#include "data/image_ops.h"

namespace trainer {

ColorJitterDraw draw_color_jitter(const ColorJitter& jitter, SplitMix64& rng) {
  ColorJitterDraw draw;
  for (int i = 3; i > 0; --i) std::swap(draw.order[size_t(i)], draw.order[rng.below(uint64_t(i) + 1)]);
  const auto factor = [&](double strength) -> std::optional<double> {
    if (strength <= 0) return std::nullopt;
    return rng.uniform(std::max(0.0, 1.0 - strength), 1.0 + strength);
  };
  draw.factors[kBrightness] = factor(jitter.brightness);
  draw.factors[kContrast] = factor(jitter.contrast);
  draw.factors[kSaturation] = factor(jitter.saturation);
  if (jitter.hue > 0) draw.factors[kHue] = rng.uniform(-jitter.hue, jitter.hue);
  return draw;
}

cv::Mat apply_color_jitter(const cv::Mat& image, const ColorJitterDraw& draw) {
  cv::Mat out = image;
  for (const int adjustment : draw.order) {
    const std::optional<double>& factor = draw.factors[size_t(adjustment)];
    if (!factor) continue;
    switch (adjustment) {
      case kBrightness: out = adjust_brightness(out, *factor); break;
      case kContrast: out = adjust_contrast(out, *factor); break;
      case kSaturation: out = adjust_saturation(out, *factor); break;
      default: out = adjust_hue(out, *factor); break;
    }
  }
  return out;
}

}  // namespace trainer
