// Automatic augmentation policies for classification training, as torchvision defines them (and
// Ultralytics' classify trainer and timm's recipes use them): RandAugment (Cubuk et al., 2020),
// AutoAugment's ImageNet policy (Cubuk et al., 2019) and TrivialAugmentWide (Müller and Hutter,
// 2021), drawing from the ops of image_ops.h with torchvision's magnitude tables.
#pragma once
#include <opencv2/core.hpp>

#include <cstdint>
#include <vector>

#include "config/setting_types.h"
#include "data/image_ops.h"
#include "data/rng.h"

namespace trainer {

struct AutoAugment {
  AutoAugmentPolicy policy = AutoAugmentPolicy::none;
  int64_t ops = 2;        ///< randaugment: ops applied one after another (torchvision's num_ops)
  int64_t magnitude = 9;  ///< randaugment: the magnitude bin of 31 every op uses (0 = none, 30 = strongest)
  TimmRandAugmentSpec timm = {};  ///< timm_rand: timm's RandAugment (data/classify/timm_rand_augment.h)
};

// The ops one image of `size` gets, in order:
// - randaugment: `ops` ops, each uniform over the 14 of RandAugment (Identity included, Invert
//   not), at bin `magnitude` of 31, signed ops negated half of the time;
// - trivialaugment: one op uniform over the same 14 at a uniform bin of 31 of the wide ranges
//   (shear 0.99, translation 32 px, rotation 135 degrees, enhancement 0.99, posterize to 2 bits);
// - autoaugment: one of the 25 ImageNet sub-policies uniformly, each of its two ops applied with
//   its own probability at its own bin of 10;
// - timm_rand: timm's RandAugment (data/classify/timm_rand_augment.h).
std::vector<ImageOpDraw> draw_auto_augment(const AutoAugment& augment, cv::Size size, SplitMix64& rng);

// `image` (uint8, 1 or 3 channels) with the drawn ops applied.
cv::Mat auto_augment(const cv::Mat& image, const AutoAugment& augment, SplitMix64& rng);

}  // namespace trainer
