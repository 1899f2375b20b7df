#include "data/image_ops.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace trainer {
namespace {

constexpr double kDegree = 3.14159265358979323846 / 180.0;

// std::nearbyint for floats (round half to even), inline: adding and removing 2^23 leaves no
// fraction bits, so the default rounding mode rounds there; already whole from 2^23 on.
float round_half_even(float value) {
  constexpr float kNoFraction = 8388608.0f;
  if (!(std::abs(value) < kNoFraction)) return value;
  return value >= 0 ? (value + kNoFraction) - kNoFraction : -((-value + kNoFraction) - kNoFraction);
}

// The same for values in [0, 2^23), without a branch, so loops over pixels vectorise.
float round_half_even_positive(float value) {
  constexpr float kNoFraction = 8388608.0f;
  return (value + kNoFraction) - kNoFraction;
}

// torchvision's _blend on uint8 images: own * a + (1 - own) * b in float32 (the weights rounded
// to float as PyTorch does with a Python scalar), clamped to [0, 255] and truncated. Each product
// is rounded on its own, as PyTorch's separate multiplies do: CMakeLists.txt builds this file
// with -ffp-contract=off, so no fused multiply-add merges them on CPUs that have one.
struct Blend {
  float own, other;
  explicit Blend(double ratio) : own(float(ratio)), other(float(1.0 - ratio)) {}
  // min and max rather than std::clamp, and through int: no branch, so the loops vectorise.
  uint8_t operator()(float a, float b) const {
    const float mine = own * a, theirs = other * b;
    return uint8_t(int(std::min(std::max(mine + theirs, 0.0f), 255.0f)));
  }
};

// `to` = blend(a, b) over n values (restrict: uint8_t stores could alias anything otherwise).
void blend_values(const uint8_t* __restrict a, const uint8_t* __restrict b, uint8_t* __restrict to, int n,
                  const Blend blend) {
  for (int i = 0; i < n; ++i) to[i] = blend(float(a[i]), float(b[i]));
}

// `image` with every value v of channel c replaced by level(c, v), through one lookup table
// (OpenCV's LUT is fastest with one table for all channels, so a per-channel one only when asked).
template <typename LevelFn>
cv::Mat map_levels(const cv::Mat& image, LevelFn level, bool per_channel = false) {
  const int channels = per_channel ? image.channels() : 1;
  cv::Mat table(1, 256, CV_8UC(channels));
  uint8_t* entries = table.ptr<uint8_t>(0);
  for (int v = 0; v < 256; ++v) {
    for (int c = 0; c < channels; ++c) entries[v * channels + c] = level(c, uint8_t(v));
  }
  cv::Mat out;
  cv::LUT(image, table, out);
  return out;
}

// torchvision's _get_inverse_affine_matrix: maps an output pixel to its source, both as offsets
// from the image centre; `centre` (the fixed point) and `translate` in that frame, angles in degrees.
std::array<double, 6> inverse_affine(cv::Point2d centre, double angle, cv::Point2d translate, double shear_x,
                                     double shear_y) {
  const double rot = angle * kDegree, sx = shear_x * kDegree, sy = shear_y * kDegree;
  const double a = std::cos(rot - sy) / std::cos(sy);
  const double b = -std::cos(rot - sy) * std::tan(sx) / std::cos(sy) - std::sin(rot);
  const double c = std::sin(rot - sy) / std::cos(sy);
  const double d = -std::sin(rot - sy) * std::tan(sx) / std::cos(sy) + std::cos(rot);
  std::array<double, 6> m{d, -b, 0.0, -c, a, 0.0};
  m[2] += m[0] * (-centre.x - translate.x) + m[1] * (-centre.y - translate.y) + centre.x;
  m[5] += m[3] * (-centre.x - translate.x) + m[4] * (-centre.y - translate.y) + centre.y;
  return m;
}

// grid_sample(mode="nearest", padding_mode="zeros", align_corners=False) through `m`, in float32
// step by step as torchvision's _gen_affine_grid and grid_sample compute it (ties and near-ties
// then round the same way): pixel (i, j) sits at (i + 0.5 - w/2, j + 0.5 - h/2) from the centre,
// is mapped by m, normalised by half the size, unnormalised to a source pixel, rounded half to
// even; outside the image it is black.
cv::Mat warp_nearest(const cv::Mat& image, const std::array<double, 6>& m) {
  const int w = image.cols, h = image.rows, channels = image.channels();
  const float half_w = 0.5f * float(w), half_h = 0.5f * float(h);
  const float ax = float(m[0]) / half_w, bx = float(m[1]) / half_w, cx = float(m[2]) / half_w;
  const float ay = float(m[3]) / half_h, by = float(m[4]) / half_h, cy = float(m[5]) / half_h;
  std::vector<float> x_ax(static_cast<size_t>(w)), x_ay(static_cast<size_t>(w));
  for (int i = 0; i < w; ++i) {
    const float x = torch_linspace(-half_w + 0.5f, half_w - 0.5f, w, i);
    x_ax[size_t(i)] = x * ax, x_ay[size_t(i)] = x * ay;
  }
  cv::Mat out = cv::Mat::zeros(image.size(), image.type());
  for (int j = 0; j < h; ++j) {
    const float y = torch_linspace(-half_h + 0.5f, half_h - 0.5f, h, j);
    const float y_bx = y * bx, y_by = y * by;
    uint8_t* to = out.ptr<uint8_t>(j);
    for (int i = 0; i < w; ++i) {
      const float gx = x_ax[size_t(i)] + y_bx + cx, gy = x_ay[size_t(i)] + y_by + cy;
      const float source_x = round_half_even(((gx + 1.0f) * float(w) - 1.0f) / 2.0f);
      const float source_y = round_half_even(((gy + 1.0f) * float(h) - 1.0f) / 2.0f);
      if (source_x < 0 || source_y < 0 || source_x >= float(w) || source_y >= float(h)) continue;
      const uint8_t* from = image.ptr<uint8_t>(int(source_y)) + int(source_x) * channels;
      for (int c = 0; c < channels; ++c) to[i * channels + c] = from[c];
    }
  }
  return out;
}

cv::Mat affine(const cv::Mat& image, cv::Point2d centre, double angle, cv::Point2d translate, double shear_x,
               double shear_y) {
  return warp_nearest(image, inverse_affine(centre, angle, translate, shear_x, shear_y));
}

// rgb_to_grayscale on uint8: 0.2989 R + 0.587 G + 0.114 B in float32, truncated.
cv::Mat grey_of(const cv::Mat& image) {
  std::array<float, 256> red, green, blue;
  for (int level = 0; level < 256; ++level) {
    red[size_t(level)] = 0.2989f * float(level), green[size_t(level)] = 0.587f * float(level);
    blue[size_t(level)] = 0.114f * float(level);
  }
  cv::Mat grey(image.size(), CV_8UC1);
  for (int y = 0; y < image.rows; ++y) {
    const uint8_t* in = image.ptr<uint8_t>(y);
    uint8_t* to = grey.ptr<uint8_t>(y);
    for (int x = 0; x < image.cols; ++x) to[x] = uint8_t(red[in[3 * x]] + green[in[3 * x + 1]] + blue[in[3 * x + 2]]);
  }
  return grey;
}

// Blends every pixel with the pixel at the same place in `other` (same size and channels).
cv::Mat blend_images(const cv::Mat& image, const cv::Mat& other, double ratio) {
  cv::Mat out(image.size(), image.type());
  const int width = image.cols * image.channels();
  for (int y = 0; y < image.rows; ++y) {
    blend_values(image.ptr<uint8_t>(y), other.ptr<uint8_t>(y), out.ptr<uint8_t>(y), width, Blend(ratio));
  }
  return out;
}

// Away from (or towards) a smoothed copy: the 3x3 kernel [1 1 1; 1 5 1; 1 1 1] / 13 inside, rounded
// half to even, the border pixels kept, as _blurred_degenerate_image.
cv::Mat sharpness(const cv::Mat& image, double factor) {
  if (image.cols <= 2 || image.rows <= 2) return image.clone();
  const int channels = image.channels();
  const float side = 1.0f / 13.0f, middle = 5.0f / 13.0f;
  cv::Mat smooth = image.clone();
  const int end = (image.cols - 1) * channels;
  for (int y = 1; y + 1 < image.rows; ++y) {
    const uint8_t* __restrict above = image.ptr<uint8_t>(y - 1);
    const uint8_t* __restrict row = image.ptr<uint8_t>(y);
    const uint8_t* __restrict below = image.ptr<uint8_t>(y + 1);
    uint8_t* __restrict to = smooth.ptr<uint8_t>(y);
    for (int x = channels; x < end; ++x) {
      const int l = x - channels, r = x + channels;
      const int around = above[l] + above[x] + above[r] + row[l] + row[r] + below[l] + below[x] + below[r];
      const float outer = side * float(around), inner = middle * float(row[x]);
      to[x] = uint8_t(int(round_half_even_positive(outer + inner)));
    }
  }
  return blend_images(image, smooth, factor);
}

// Each channel stretched to [0, 255]; a constant channel stays as it is.
cv::Mat autocontrast(const cv::Mat& image) {
  const int channels = image.channels();
  std::vector<float> low(size_t(channels), 255.0f), high(size_t(channels), 0.0f);
  std::vector<cv::Mat> planes;
  cv::split(image, planes);
  for (size_t c = 0; c < size_t(channels); ++c) {
    double lowest = 0, highest = 0;
    cv::minMaxLoc(planes[c], &lowest, &highest);
    low[c] = float(lowest), high[c] = float(highest);
  }
  std::vector<float> scale(size_t(channels), 1.0f);
  for (size_t c = 0; c < size_t(channels); ++c) {
    if (high[c] > low[c]) {
      scale[c] = (1.0f / (high[c] - low[c])) * 255.0f;  // PyTorch's scalar / tensor: reciprocal, then multiply
    } else {
      low[c] = 0.0f;
    }
  }
  return map_levels(image, [&](int c, uint8_t value) {
    return uint8_t(std::clamp((float(value) - low[size_t(c)]) * scale[size_t(c)], 0.0f, 255.0f));
  }, true);
}

// PIL's ImageOps.equalize per channel, as torchvision's _scale_channel: a lookup table from the
// cumulative histogram in steps of (pixels outside the last occupied level) / 255; a channel
// whose step is 0 (one or two levels, mostly one) stays as it is.
cv::Mat equalize(const cv::Mat& image) {
  const int channels = image.channels();
  std::vector<std::array<int64_t, 256>> histograms(static_cast<size_t>(channels));
  for (auto& histogram : histograms) histogram.fill(0);
  for (int y = 0; y < image.rows; ++y) {
    const uint8_t* row = image.ptr<uint8_t>(y);
    for (int x = 0; x < image.cols; ++x) {
      for (int c = 0; c < channels; ++c) ++histograms[size_t(c)][row[x * channels + c]];
    }
  }
  std::vector<std::array<uint8_t, 256>> tables(static_cast<size_t>(channels));
  for (size_t c = 0; c < size_t(channels); ++c) {
    const auto& histogram = histograms[c];
    int last = 255;
    while (histogram[size_t(last)] == 0) --last;
    int64_t total = 0;
    for (const int64_t count : histogram) total += count;
    const int64_t step = (total - histogram[size_t(last)]) / 255;
    auto& table = tables[c];
    int64_t below = 0;
    for (int level = 0; level < 256; ++level) {
      table[size_t(level)] = step == 0 ? uint8_t(level) : uint8_t(std::min<int64_t>((below + step / 2) / step, 255));
      below += histogram[size_t(level)];
    }
  }
  return map_levels(image, [&](int c, uint8_t value) { return tables[size_t(c)][value]; }, true);
}

}  // namespace

float torch_linspace(float start, float end, int64_t steps, int64_t i) {
  if (steps <= 1) return start;
  const float step = (end - start) / float(steps - 1);
  return i < steps / 2 ? start + step * float(i) : end - step * float(steps - i - 1);
}

std::string_view image_op_name(ImageOp op) {
  switch (op) {
    case ImageOp::identity: return "Identity";
    case ImageOp::shear_x: return "ShearX";
    case ImageOp::shear_y: return "ShearY";
    case ImageOp::translate_x: return "TranslateX";
    case ImageOp::translate_y: return "TranslateY";
    case ImageOp::rotate: return "Rotate";
    case ImageOp::brightness: return "Brightness";
    case ImageOp::color: return "Color";
    case ImageOp::contrast: return "Contrast";
    case ImageOp::sharpness: return "Sharpness";
    case ImageOp::posterize: return "Posterize";
    case ImageOp::solarize: return "Solarize";
    case ImageOp::autocontrast: return "AutoContrast";
    case ImageOp::equalize: return "Equalize";
    case ImageOp::invert: return "Invert";
    case ImageOp::solarize_add: return "SolarizeAdd";
  }
  return "?";
}

cv::Mat apply_image_op(const cv::Mat& image, ImageOp op, double magnitude) {
  CV_Assert(image.depth() == CV_8U && (image.channels() == 1 || image.channels() == 3));
  // Shears keep the top-left corner (torchvision passes center=[0, 0]) and take the slope as
  // degrees(atan(magnitude)); the other geometric ops turn about the centre.
  const cv::Point2d corner(-image.cols * 0.5, -image.rows * 0.5), centre(0, 0), still(0, 0);
  const double slope = std::atan(magnitude) / kDegree;
  switch (op) {
    case ImageOp::identity: return image.clone();
    case ImageOp::shear_x: return affine(image, corner, 0, still, slope, 0);
    case ImageOp::shear_y: return affine(image, corner, 0, still, 0, slope);
    case ImageOp::translate_x: return affine(image, centre, 0, {std::trunc(magnitude), 0}, 0, 0);
    case ImageOp::translate_y: return affine(image, centre, 0, {0, std::trunc(magnitude)}, 0, 0);
    // F.rotate turns counter-clockwise, hence the negated angle in its inverse matrix.
    case ImageOp::rotate: return affine(image, centre, -magnitude, still, 0, 0);
    case ImageOp::brightness: return adjust_brightness(image, 1.0 + magnitude);
    case ImageOp::color: return adjust_saturation(image, 1.0 + magnitude);
    case ImageOp::contrast: return adjust_contrast(image, 1.0 + magnitude);
    case ImageOp::sharpness: return sharpness(image, 1.0 + magnitude);
    case ImageOp::posterize: {
      const int bits = std::clamp(int(magnitude), 0, 8);
      const uint8_t mask = uint8_t(0xFF << (8 - bits));
      return map_levels(image, [&](int, uint8_t value) { return uint8_t(value & mask); });
    }
    case ImageOp::solarize:
      return map_levels(image, [&](int, uint8_t value) { return value >= magnitude ? uint8_t(255 - value) : value; });
    case ImageOp::autocontrast: return autocontrast(image);
    case ImageOp::equalize: return equalize(image);
    case ImageOp::invert: return map_levels(image, [](int, uint8_t value) { return uint8_t(255 - value); });
    case ImageOp::solarize_add: {
      const int add = int(magnitude);
      return map_levels(image, [&](int, uint8_t value) { return value < 128 ? uint8_t(std::min(255, value + add)) : value; });
    }
  }
  return image.clone();
}

cv::Mat adjust_brightness(const cv::Mat& image, double factor) {
  const Blend blend(factor);
  return map_levels(image, [&](int, uint8_t value) { return blend(float(value), 0.0f); });
}

// Towards or away from the mean grey level (of the image's luma when it has colour).
cv::Mat adjust_contrast(const cv::Mat& image, double factor) {
  const cv::Mat grey = image.channels() == 3 ? grey_of(image) : image;
  const float mean = float(cv::sum(grey)[0] / double(grey.total()));
  const Blend blend(factor);
  return map_levels(image, [&](int, uint8_t value) { return blend(float(value), mean); });
}

cv::Mat adjust_saturation(const cv::Mat& image, double factor) {
  if (image.channels() == 1) return image.clone();
  cv::Mat grey;
  cv::merge(std::vector<cv::Mat>(3, grey_of(image)), grey);
  return blend_images(image, grey, factor);
}

cv::Mat adjust_hue(const cv::Mat& image, double factor) {
  if (image.channels() == 1) return image.clone();
  const float shift = float(factor);
  cv::Mat out(image.size(), image.type());
  for (int row = 0; row < image.rows; ++row) {
    const uint8_t* from = image.ptr<uint8_t>(row);
    uint8_t* to = out.ptr<uint8_t>(row);
    for (int col = 0; col < image.cols; ++col, from += 3, to += 3) {
      // _rgb2hsv: where max == min, saturation and hue are 0 and the divisors are 1.
      const float r = float(from[0]) / 255.0f, g = float(from[1]) / 255.0f, b = float(from[2]) / 255.0f;
      const float maxc = std::max(r, std::max(g, b)), minc = std::min(r, std::min(g, b));
      const bool flat = maxc == minc;
      const float range = maxc - minc;
      const float s = range / (flat ? 1.0f : maxc);
      const float divisor = flat ? 1.0f : range;
      const float rc = (maxc - r) / divisor, gc = (maxc - g) / divisor, bc = (maxc - b) / divisor;
      float h = maxc == r ? bc - gc : maxc == g ? 2.0f + rc - bc : 4.0f + gc - rc;
      h = std::fmod(h / 6.0f + 1.0f, 1.0f);
      // torch.remainder(h + factor, 1.0): fmod, moved into [0, 1) when negative.
      h = std::fmod(h + shift, 1.0f);
      if (h < 0.0f) h += 1.0f;
      // _hsv2rgb.
      const float sector = std::floor(h * 6.0f);
      const float f = h * 6.0f - sector;
      const float v = maxc;
      const float p = std::clamp(v * (1.0f - s), 0.0f, 1.0f);
      const float q = std::clamp(v * (1.0f - s * f), 0.0f, 1.0f);
      const float t = std::clamp(v * (1.0f - s * (1.0f - f)), 0.0f, 1.0f);
      float rgb[3];
      switch (int(sector) % 6) {
        case 0: rgb[0] = v, rgb[1] = t, rgb[2] = p; break;
        case 1: rgb[0] = q, rgb[1] = v, rgb[2] = p; break;
        case 2: rgb[0] = p, rgb[1] = v, rgb[2] = t; break;
        case 3: rgb[0] = p, rgb[1] = q, rgb[2] = v; break;
        case 4: rgb[0] = t, rgb[1] = p, rgb[2] = v; break;
        default: rgb[0] = v, rgb[1] = p, rgb[2] = q; break;
      }
      // convert_image_dtype: x * 255.999, truncated (torchvision 0.15+; 0.14 truncated x * 255).
      for (int c = 0; c < 3; ++c) to[c] = uint8_t(rgb[c] * 255.999f);
    }
  }
  return out;
}

}  // namespace trainer
