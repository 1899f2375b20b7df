#include "data/classify/timm_rand_augment.h"

#include <algorithm>
#include <cmath>

#include "data/beta_draw.h"

namespace trainer {
namespace {

constexpr double kLevelDenominator = 10.0;  // timm's _LEVEL_DENOM: m counts tenths of an op's range

bool is_signed(TimmOp op, bool increasing) {
  switch (op) {
    case TimmOp::rotate:
    case TimmOp::shear_x:
    case TimmOp::shear_y:
    case TimmOp::translate_x_rel:
    case TimmOp::translate_y_rel: return true;
    case TimmOp::color:
    case TimmOp::contrast:
    case TimmOp::brightness:
    case TimmOp::sharpness: return increasing;
    default: return false;
  }
}

// timm's enhancement factor (1 = unchanged) as image_ops.h's magnitude (factor − 1).
double enhancement(double fraction, bool negate, bool increasing) {
  if (!increasing) return fraction * 1.8 + 0.1 - 1.0;
  const double shift = fraction * 0.9;
  return std::max(0.1, 1.0 + (negate ? -shift : shift)) - 1.0;
}

ImageOp enhancement_op(TimmOp op) {
  switch (op) {
    case TimmOp::color: return ImageOp::color;
    case TimmOp::contrast: return ImageOp::contrast;
    case TimmOp::brightness: return ImageOp::brightness;
    default: return ImageOp::sharpness;
  }
}

// Posterize's bits and solarize's threshold, as timm truncates them (its *Increasing variants
// count down from the top).
ImageOpDraw level_op(TimmOp op, double fraction, bool increasing) {
  switch (op) {
    case TimmOp::posterize: {
      const int bits = int(fraction * 4);
      return {ImageOp::posterize, double(increasing ? 4 - bits : bits)};
    }
    case TimmOp::solarize: {
      const int threshold = int(fraction * 256);
      return {ImageOp::solarize, double(increasing ? 256 - threshold : threshold)};
    }
    default: return {ImageOp::solarize_add, double(int(fraction * 110))};
  }
}

}  // namespace

ImageOpDraw timm_op_at(TimmOp op, double level, bool negate, bool increasing, cv::Size size) {
  const double fraction = level / kLevelDenominator;
  const double sign = negate ? -1.0 : 1.0;
  switch (op) {
    case TimmOp::auto_contrast: return {ImageOp::autocontrast, 0.0};
    case TimmOp::equalize: return {ImageOp::equalize, 0.0};
    case TimmOp::invert: return {ImageOp::invert, 0.0};
    case TimmOp::rotate: return {ImageOp::rotate, sign * fraction * 30.0};
    case TimmOp::shear_x: return {ImageOp::shear_x, sign * fraction * 0.3};
    case TimmOp::shear_y: return {ImageOp::shear_y, sign * fraction * 0.3};
    case TimmOp::translate_x_rel: return {ImageOp::translate_x, sign * fraction * 0.45 * size.width};
    case TimmOp::translate_y_rel: return {ImageOp::translate_y, sign * fraction * 0.45 * size.height};
    case TimmOp::color:
    case TimmOp::contrast:
    case TimmOp::brightness:
    case TimmOp::sharpness: return {enhancement_op(op), enhancement(fraction, negate, increasing)};
    default: return level_op(op, fraction, increasing);
  }
}

std::vector<ImageOpDraw> draw_timm_rand_augment(const TimmRandAugmentSpec& spec, cv::Size size, SplitMix64& rng) {
  // As timm: the layers' ops are chosen first, then each is applied or not, and its magnitude drawn.
  std::vector<TimmOp> chosen;
  for (int64_t k = 0; k < spec.layers; ++k) chosen.push_back(TimmOp(rng.below(kTimmOps)));
  std::vector<ImageOpDraw> draws;
  for (const TimmOp op : chosen) {
    if (rng.uniform() > 0.5) continue;
    double level = spec.magnitude;
    if (std::isinf(spec.magnitude_std)) {
      level = rng.uniform(0.0, spec.magnitude);
    } else if (spec.magnitude_std > 0) {
      level = spec.magnitude + spec.magnitude_std * normal_draw(rng);
    }
    level = std::clamp(level, 0.0, spec.magnitude_max);
    const bool negate = is_signed(op, spec.increasing) && rng.uniform() > 0.5;
    draws.push_back(timm_op_at(op, level, negate, spec.increasing, size));
  }
  return draws;
}

}  // namespace trainer
