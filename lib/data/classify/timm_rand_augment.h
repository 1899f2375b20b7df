// timm's RandAugment (timm/data/auto_augment.py: rand_augment_transform, RandAugment, AugmentOp and
// its level-to-argument rules), drawn from our seeded generator: per image `layers` ops chosen
// uniformly with replacement from timm's 15 (AutoContrast, Equalize, Invert, Rotate, Posterize,
// Solarize, SolarizeAdd, Color, Contrast, Brightness, Sharpness, ShearX, ShearY, TranslateXRel,
// TranslateYRel; with `increasing` the Posterize, Solarize and enhancement ops whose strength
// rises with the magnitude), each applied at odds 0.5, at the magnitude plus Gaussian noise of
// magnitude_std (uniform in [0, m] when infinite) clipped to [0, magnitude_max], then mapped to
// the op's argument as timm maps it (rotation ±30°·m/10, shear ±0.3·m/10, translation
// ±0.45·m/10 of the side, enhancement 0.1 + 1.8·m/10 or 1 ± 0.9·m/10, posterize int(4·m/10) bits,
// solarize int(256·m/10), solarize-add int(110·m/10)). The ops themselves are image_ops.h's
// (torchvision's arithmetic: nearest-pixel geometry on a black fill, whole-pixel translation),
// not PIL's random bilinear/bicubic resampling on the mean colour that timm's ops use.
#pragma once
#include <opencv2/core.hpp>

#include <vector>

#include "config/setting_types.h"
#include "data/image_ops.h"
#include "data/rng.h"

namespace trainer {

// timm's ops as image_ops.h applies them, in the order of timm's lists.
enum class TimmOp {
  auto_contrast, equalize, invert, rotate, posterize, solarize, solarize_add, color, contrast, brightness,
  sharpness, shear_x, shear_y, translate_x_rel, translate_y_rel
};
inline constexpr int kTimmOps = 15;

// The op `op` at the clipped magnitude `level` (0 … magnitude_max): its image op and argument as
// timm's level-to-argument rule gives it, `negate` deciding the sign of the signed ones (timm's
// _randomly_negate), `increasing` choosing the *Increasing variants; `size` for the translations.
ImageOpDraw timm_op_at(TimmOp op, double level, bool negate, bool increasing, cv::Size size);

// The ops one image of `size` gets, in order (the ones that lost their 0.5 draw left out).
std::vector<ImageOpDraw> draw_timm_rand_augment(const TimmRandAugmentSpec& spec, cv::Size size, SplitMix64& rng);

}  // namespace trainer
