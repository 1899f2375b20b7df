// torchvision's ColorJitter, which Ultralytics' classification training applies when no automatic
// augmentation is on (timm's too): brightness, contrast, saturation and hue, each by a factor drawn
// from its range, in a random order, with torchvision's uint8 arithmetic (image_ops.h).
#pragma once
#include <opencv2/core.hpp>

#include <array>
#include <optional>

#include "data/rng.h"

namespace trainer {

// Strengths as ColorJitter takes them: brightness, contrast and saturation factors are drawn from
// [max(0, 1 - x), 1 + x], the hue shift from [-hue, hue] of a turn (at most 0.5); 0 = off.
struct ColorJitter {
  double brightness = 0, contrast = 0, saturation = 0, hue = 0;
  bool active() const { return brightness > 0 || contrast > 0 || saturation > 0 || hue > 0; }
};

// The adjustments in ColorJitter's numbering: what `order` lists and `factors` is indexed by.
enum ColorAdjustment { kBrightness = 0, kContrast = 1, kSaturation = 2, kHue = 3 };

struct ColorJitterDraw {
  std::array<int, 4> order = {kBrightness, kContrast, kSaturation, kHue};  ///< torchvision's fn_idx
  std::array<std::optional<double>, 4> factors;  ///< per adjustment; none where its strength is 0
};

ColorJitterDraw draw_color_jitter(const ColorJitter& jitter, SplitMix64& rng);

// `image` (uint8, 1 or 3 channels, RGB) with the drawn adjustments applied in the drawn order;
// saturation and hue leave a grey image as it is.
cv::Mat apply_color_jitter(const cv::Mat& image, const ColorJitterDraw& draw);

}  // namespace trainer
