// The image operations of AutoAugment, RandAugment and TrivialAugmentWide, as torchvision applies
// them to uint8 tensors (transforms.autoaugment._apply_op): the same magnitudes, geometry,
// arithmetic and rounding, so a policy or magnitude taken from a Python recipe means the same here.
// tests/test_image_ops.cpp compares every op with torchvision's output.
#pragma once
#include <opencv2/core.hpp>

#include <cstdint>
#include <string_view>

namespace trainer {

enum class ImageOp {
  identity, shear_x, shear_y, translate_x, translate_y, rotate, brightness, color, contrast, sharpness,
  posterize, solarize, autocontrast, equalize, invert, solarize_add
};

// An op with its magnitude, as a policy draws it.
struct ImageOpDraw {
  ImageOp op = ImageOp::identity;
  double magnitude = 0;  ///< in apply_image_op's units, sign included
};

// torchvision's name of the op: "ShearX", "AutoContrast", ...
std::string_view image_op_name(ImageOp op);

// `image` (uint8, 1 or 3 channels, RGB) with `op` applied at `magnitude` in torchvision's units:
// shear as the slope (about the top-left corner), translation in pixels (truncated to whole
// ones), rotation in degrees counter-clockwise about the centre, brightness, colour, contrast and
// sharpness as an enhancement factor of 1 + magnitude, posterize as the bits kept, solarize as the
// threshold from which pixels are inverted, solarize_add (timm's SolarizeAdd) as the amount added,
// up to 255, to pixels below 128. Geometric ops take the nearest source pixel and
// fill with black; the others ignore `magnitude` or use it as above. Colour leaves a grey image
// as it is (as PIL does).
cv::Mat apply_image_op(const cv::Mat& image, ImageOp op, double magnitude);

// torchvision's adjust_brightness, adjust_contrast, adjust_saturation and adjust_hue on uint8 (its
// tensor functional), which ColorJitter applies and the ops above use with factor 1 + magnitude:
// blends with black, with the mean luma, with the luma image; the hue turned by `factor` of a full
// circle, in [-0.5, 0.5], through float32 HSV with the same arithmetic (torchvision 0.15 and later:
// 0.14 returned to uint8 one level lower in about half the pixels). Saturation and hue return a
// grey image as it is (as PIL does).
cv::Mat adjust_brightness(const cv::Mat& image, double factor);
cv::Mat adjust_contrast(const cv::Mat& image, double factor);
cv::Mat adjust_saturation(const cv::Mat& image, double factor);
cv::Mat adjust_hue(const cv::Mat& image, double factor);

// Value i of torch.linspace(start, end, steps) in float32, computed as PyTorch's CPU kernel does
// (from the start for the first half, from the end for the second): torchvision's magnitude
// tables and sampling grids are made with it.
float torch_linspace(float start, float end, int64_t steps, int64_t i);

}  // namespace trainer
