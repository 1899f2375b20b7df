#include "data/classify/auto_augment.h"

#include <array>
#include <cmath>

#include "data/classify/timm_rand_augment.h"

namespace trainer {
namespace {

// RandAugment's and TrivialAugmentWide's choices, in torchvision's order.
constexpr std::array<ImageOp, 14> kRandAugmentOps = {
    ImageOp::identity,  ImageOp::shear_x,    ImageOp::shear_y,   ImageOp::translate_x, ImageOp::translate_y,
    ImageOp::rotate,    ImageOp::brightness, ImageOp::color,     ImageOp::contrast,    ImageOp::sharpness,
    ImageOp::posterize, ImageOp::solarize,   ImageOp::autocontrast, ImageOp::equalize};

bool has_magnitude(ImageOp op) {
  return op != ImageOp::identity && op != ImageOp::autocontrast && op != ImageOp::equalize && op != ImageOp::invert;
}

// Posterize and solarize weaken as the bin falls and are never negated.
bool is_signed(ImageOp op) { return has_magnitude(op) && op != ImageOp::posterize && op != ImageOp::solarize; }

// Value `bin` of the op's magnitude table of `bins` entries (torchvision's _augmentation_space;
// `wide` is TrivialAugmentWide's), unsigned.
double magnitude_at(ImageOp op, int64_t bin, int64_t bins, bool wide, cv::Size size) {
  const auto linspace = [&](double end) { return double(torch_linspace(0.0f, float(end), bins, bin)); };
  switch (op) {
    case ImageOp::shear_x:
    case ImageOp::shear_y: return linspace(wide ? 0.99 : 0.3);
    case ImageOp::translate_x: return linspace(wide ? 32.0 : 150.0 / 331.0 * size.width);
    case ImageOp::translate_y: return linspace(wide ? 32.0 : 150.0 / 331.0 * size.height);
    case ImageOp::rotate: return linspace(wide ? 135.0 : 30.0);
    case ImageOp::brightness:
    case ImageOp::color:
    case ImageOp::contrast:
    case ImageOp::sharpness: return linspace(wide ? 0.99 : 0.9);
    case ImageOp::posterize: {
      // 8 - round(bin / ((bins - 1) / 4)) bits (/ 6 when wide), in float32 and rounded half to even.
      const float per_bit = float(double(bins - 1) / (wide ? 6.0 : 4.0));
      return 8.0 - double(std::nearbyint(float(bin) / per_bit));
    }
    case ImageOp::solarize: return double(torch_linspace(255.0f, 0.0f, bins, bin));
    default: return 0.0;
  }
}

ImageOpDraw draw_op(ImageOp op, int64_t bin, int64_t bins, bool wide, cv::Size size, SplitMix64& rng) {
  double magnitude = has_magnitude(op) ? magnitude_at(op, bin, bins, wide, size) : 0.0;
  if (is_signed(op) && rng.below(2) == 1) magnitude = -magnitude;
  return {op, magnitude};
}

// AutoAugment's ImageNet policy: two (op, probability, bin of 10) per sub-policy; bin -1 for ops
// without a magnitude.
struct PolicyStep {
  ImageOp op;
  double probability;
  int bin;
};
using SubPolicy = std::array<PolicyStep, 2>;

constexpr std::array<SubPolicy, 25> kImageNetPolicy = {{
    {{{ImageOp::posterize, 0.4, 8}, {ImageOp::rotate, 0.6, 9}}},
    {{{ImageOp::solarize, 0.6, 5}, {ImageOp::autocontrast, 0.6, -1}}},
    {{{ImageOp::equalize, 0.8, -1}, {ImageOp::equalize, 0.6, -1}}},
    {{{ImageOp::posterize, 0.6, 7}, {ImageOp::posterize, 0.6, 6}}},
    {{{ImageOp::equalize, 0.4, -1}, {ImageOp::solarize, 0.2, 4}}},
    {{{ImageOp::equalize, 0.4, -1}, {ImageOp::rotate, 0.8, 8}}},
    {{{ImageOp::solarize, 0.6, 3}, {ImageOp::equalize, 0.6, -1}}},
    {{{ImageOp::posterize, 0.8, 5}, {ImageOp::equalize, 1.0, -1}}},
    {{{ImageOp::rotate, 0.2, 3}, {ImageOp::solarize, 0.6, 8}}},
    {{{ImageOp::equalize, 0.6, -1}, {ImageOp::posterize, 0.4, 6}}},
    {{{ImageOp::rotate, 0.8, 8}, {ImageOp::color, 0.4, 0}}},
    {{{ImageOp::rotate, 0.4, 9}, {ImageOp::equalize, 0.6, -1}}},
    {{{ImageOp::equalize, 0.0, -1}, {ImageOp::equalize, 0.8, -1}}},
    {{{ImageOp::invert, 0.6, -1}, {ImageOp::equalize, 1.0, -1}}},
    {{{ImageOp::color, 0.6, 4}, {ImageOp::contrast, 1.0, 8}}},
    {{{ImageOp::rotate, 0.8, 8}, {ImageOp::color, 1.0, 2}}},
    {{{ImageOp::color, 0.8, 8}, {ImageOp::solarize, 0.8, 7}}},
    {{{ImageOp::sharpness, 0.4, 7}, {ImageOp::invert, 0.6, -1}}},
    {{{ImageOp::shear_x, 0.6, 5}, {ImageOp::equalize, 1.0, -1}}},
    {{{ImageOp::color, 0.4, 0}, {ImageOp::equalize, 0.6, -1}}},
    {{{ImageOp::equalize, 0.4, -1}, {ImageOp::solarize, 0.2, 4}}},
    {{{ImageOp::solarize, 0.6, 5}, {ImageOp::autocontrast, 0.6, -1}}},
    {{{ImageOp::invert, 0.6, -1}, {ImageOp::equalize, 1.0, -1}}},
    {{{ImageOp::color, 0.6, 4}, {ImageOp::contrast, 1.0, 8}}},
    {{{ImageOp::equalize, 0.8, -1}, {ImageOp::equalize, 0.6, -1}}},
}};

}  // namespace

std::vector<ImageOpDraw> draw_auto_augment(const AutoAugment& augment, cv::Size size, SplitMix64& rng) {
  constexpr int64_t kBins = 31, kAutoAugmentBins = 10;
  std::vector<ImageOpDraw> draws;
  switch (augment.policy) {
    case AutoAugmentPolicy::none: break;
    case AutoAugmentPolicy::randaugment:
      for (int64_t k = 0; k < augment.ops; ++k) {
        const ImageOp op = kRandAugmentOps[rng.below(kRandAugmentOps.size())];
        draws.push_back(draw_op(op, augment.magnitude, kBins, false, size, rng));
      }
      break;
    case AutoAugmentPolicy::trivialaugment: {
      const ImageOp op = kRandAugmentOps[rng.below(kRandAugmentOps.size())];
      draws.push_back(draw_op(op, int64_t(rng.below(kBins)), kBins, true, size, rng));
      break;
    }
    case AutoAugmentPolicy::timm_rand: return draw_timm_rand_augment(augment.timm, size, rng);
    case AutoAugmentPolicy::autoaugment:
      for (const PolicyStep& step : kImageNetPolicy[rng.below(kImageNetPolicy.size())]) {
        // torchvision applies a step when its uniform draw is <= the probability.
        if (rng.uniform() <= step.probability) {
          draws.push_back(draw_op(step.op, step.bin, kAutoAugmentBins, false, size, rng));
        }
      }
      break;
  }
  return draws;
}

cv::Mat auto_augment(const cv::Mat& image, const AutoAugment& augment, SplitMix64& rng) {
  cv::Mat out = image;
  for (const ImageOpDraw& draw : draw_auto_augment(augment, image.size(), rng)) {
    out = apply_image_op(out, draw.op, draw.magnitude);
  }
  return out;
}

}  // namespace trainer
