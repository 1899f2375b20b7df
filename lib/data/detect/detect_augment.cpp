#include "data/detect/detect_augment.h"

#include <opencv2/imgproc.hpp>

#include <array>
#include <cmath>

#include "data/resize_image.h"

namespace trainer {
namespace {

std::vector<PixelBox> scaled(const std::vector<PixelBox>& boxes, double sx, double sy, double dx, double dy) {
  std::vector<PixelBox> out;
  out.reserve(boxes.size());
  for (const PixelBox& box : boxes) {
    out.push_back(
        {box.cls, float(box.x1 * sx + dx), float(box.y1 * sy + dy), float(box.x2 * sx + dx), float(box.y2 * sy + dy)});
  }
  return out;
}

PixelBox clipped(PixelBox box, cv::Size size) {
  box.x1 = std::clamp(box.x1, 0.0f, float(size.width));
  box.x2 = std::clamp(box.x2, 0.0f, float(size.width));
  box.y1 = std::clamp(box.y1, 0.0f, float(size.height));
  box.y2 = std::clamp(box.y2, 0.0f, float(size.height));
  return box;
}

cv::Matx33d translation(double dx, double dy) { return {1, 0, dx, 0, 1, dy, 0, 0, 1}; }

// M = translate · shear · rotate-and-scale · perspective · centre (Ultralytics' order); `gain`
// receives the drawn scale for the candidate rule.
cv::Matx33d draw_warp(cv::Size in, cv::Size out, const DetectAugment& augment, SplitMix64& rng, double& gain) {
  cv::Matx33d perspective = cv::Matx33d::eye();
  perspective(2, 0) = rng.uniform(-augment.perspective, augment.perspective);
  perspective(2, 1) = rng.uniform(-augment.perspective, augment.perspective);
  const double angle = rng.uniform(-augment.degrees, augment.degrees) * CV_PI / 180;
  gain = rng.uniform(1 - augment.scale, 1 + augment.scale);
  const double a = gain * std::cos(angle), b = gain * std::sin(angle);
  // cv::getRotationMatrix2D's convention: a positive angle turns counter-clockwise on screen.
  const cv::Matx33d rotation{a, b, 0, -b, a, 0, 0, 0, 1};
  cv::Matx33d shear = cv::Matx33d::eye();
  shear(0, 1) = std::tan(rng.uniform(-augment.shear, augment.shear) * CV_PI / 180);
  shear(1, 0) = std::tan(rng.uniform(-augment.shear, augment.shear) * CV_PI / 180);
  const double tx = rng.uniform(0.5 - augment.translate, 0.5 + augment.translate) * out.width;
  const double ty = rng.uniform(0.5 - augment.translate, 0.5 + augment.translate) * out.height;
  return translation(tx, ty) * shear * rotation * perspective * translation(-in.width / 2.0, -in.height / 2.0);
}

PixelBox warped(const PixelBox& box, const cv::Matx33d& m) {
  const std::array<cv::Vec3d, 4> corners{cv::Vec3d(box.x1, box.y1, 1), cv::Vec3d(box.x2, box.y1, 1),
                                         cv::Vec3d(box.x1, box.y2, 1), cv::Vec3d(box.x2, box.y2, 1)};
  float x1 = std::numeric_limits<float>::max(), y1 = x1, x2 = -x1, y2 = -x1;
  for (const cv::Vec3d& corner : corners) {
    const cv::Vec3d p = m * corner;
    const float x = float(p[0] / p[2]), y = float(p[1] / p[2]);
    x1 = std::min(x1, x), y1 = std::min(y1, y), x2 = std::max(x2, x), y2 = std::max(y2, y);
  }
  return {box.cls, x1, y1, x2, y2};
}

// Ultralytics' box_candidates: big enough, not a sliver, and not mostly clipped away.
bool is_candidate(const PixelBox& before, const PixelBox& after, double gain) {
  const double w = after.width(), h = after.height();
  const double area_before = double(before.width()) * before.height() * gain * gain;
  const double aspect = std::max(w / (h + 1e-16), h / (w + 1e-16));
  return w > 2 && h > 2 && w * h / (area_before + 1e-16) > 0.1 && aspect < 100;
}

}  // namespace

std::vector<PixelBox> to_pixel_boxes(const std::vector<YoloBox>& boxes, cv::Size size) {
  std::vector<PixelBox> out;
  out.reserve(boxes.size());
  const float w = float(size.width), h = float(size.height);
  for (const YoloBox& box : boxes) {
    out.push_back({box.cls, (box.cx - box.w / 2) * w, (box.cy - box.h / 2) * h, (box.cx + box.w / 2) * w,
                   (box.cy + box.h / 2) * h});
  }
  return out;
}

cv::Size long_side_size(cv::Size size, int64_t side) {
  const double ratio = double(side) / std::max(size.width, size.height);
  return {std::min<int>(int(std::ceil(size.width * ratio)), int(side)),
          std::min<int>(int(std::ceil(size.height * ratio)), int(side))};
}

LabelledImage resize_long_side(const LabelledImage& in, int64_t side) {
  const cv::Size size = long_side_size(in.image.size(), side);
  return {resize_to(in.image, size),
          scaled(in.boxes, double(size.width) / in.image.cols, double(size.height) / in.image.rows, 0, 0)};
}

Letterbox letterbox_geometry(cv::Size original, int64_t side, bool scaleup) {
  TORCH_INTERNAL_ASSERT(original.width > 0 && original.height > 0 && side > 0, "empty letterbox");
  double ratio = std::min(double(side) / original.width, double(side) / original.height);
  if (!scaleup) ratio = std::min(ratio, 1.0);
  Letterbox geometry;
  geometry.original = original;
  geometry.resized = cv::Size(std::clamp(int(std::lround(original.width * ratio)), 1, int(side)),
                              std::clamp(int(std::lround(original.height * ratio)), 1, int(side)));
  geometry.scale_x = double(geometry.resized.width) / original.width;
  geometry.scale_y = double(geometry.resized.height) / original.height;
  geometry.pad_x = (int(side) - geometry.resized.width) / 2;
  geometry.pad_y = (int(side) - geometry.resized.height) / 2;
  return geometry;
}

torch::Tensor Letterbox::to_original(const torch::Tensor& xyxy) const {
  const auto as_tensor = [&](double x, double y) {
    return torch::tensor({x, y, x, y}, xyxy.options().dtype(torch::kDouble));
  };
  const torch::Tensor mapped = (xyxy.to(torch::kDouble) - as_tensor(pad_x, pad_y)) / as_tensor(scale_x, scale_y);
  return torch::min(mapped.clamp_min(0), as_tensor(original.width, original.height)).to(xyxy.scalar_type());
}

std::vector<PixelBox> Letterbox::to_letterbox(const std::vector<PixelBox>& boxes) const {
  return scaled(boxes, scale_x, scale_y, pad_x, pad_y);
}

LabelledImage letterbox(const LabelledImage& in, const Letterbox& geometry, int64_t side, uint8_t pad) {
  TORCH_INTERNAL_ASSERT(in.image.size() == geometry.original, "letterbox geometry of another image");
  return {letterbox_pixels(in.image, geometry, side, pad), geometry.to_letterbox(in.boxes)};
}

cv::Mat letterbox_pixels(const cv::Mat& image, const Letterbox& geometry, int64_t side, uint8_t pad) {
  cv::Mat out(static_cast<int>(side), static_cast<int>(side), image.type(), cv::Scalar::all(pad));
  resize_to(image, geometry.resized).copyTo(out(cv::Rect(cv::Point(geometry.pad_x, geometry.pad_y), geometry.resized)));
  return out;
}

LabelledImage mosaic4(const std::vector<LabelledImage>& tiles, int64_t side, uint8_t pad, SplitMix64& rng) {
  TORCH_INTERNAL_ASSERT(tiles.size() == 4, "a mosaic has 4 tiles, got ", tiles.size());
  const int s = int(side), half = s / 2;
  const int xc = int(rng.uniform(half, 2 * s - half)), yc = int(rng.uniform(half, 2 * s - half));
  LabelledImage out;
  out.image = cv::Mat(2 * s, 2 * s, tiles[0].image.type(), cv::Scalar::all(pad));
  const cv::Rect canvas(0, 0, 2 * s, 2 * s);
  for (size_t k = 0; k < 4; ++k) {
    const cv::Mat& tile = tiles[k].image;
    // Top-left, top-right, bottom-left, bottom-right of the centre.
    const cv::Point origin(k % 2 ? xc : xc - tile.cols, k < 2 ? yc - tile.rows : yc);
    const cv::Rect placed = cv::Rect(origin, tile.size()) & canvas;
    tile(placed - origin).copyTo(out.image(placed));
    for (const PixelBox& box : scaled(tiles[k].boxes, 1, 1, origin.x, origin.y)) {
      const PixelBox kept = clipped(box, canvas.size());
      if (kept.width() > 0 && kept.height() > 0) out.boxes.push_back(kept);
    }
  }
  return out;
}

LabelledImage random_perspective(const LabelledImage& in, cv::Size out, const DetectAugment& augment, SplitMix64& rng) {
  double gain = 1;
  const cv::Matx33d m = draw_warp(in.image.size(), out, augment, rng, gain);
  LabelledImage result;
  if (m == cv::Matx33d::eye() && in.image.size() == out) {
    result.image = in.image.clone();
  } else {
    // OpenCV indexes pixel centres at integers, boxes put them at i + 0.5.
    const cv::Matx33d pixels = translation(-0.5, -0.5) * m * translation(0.5, 0.5);
    const cv::Scalar border = cv::Scalar::all(augment.pad_value);
    if (augment.perspective != 0) {
      cv::warpPerspective(in.image, result.image, pixels, out, cv::INTER_LINEAR, cv::BORDER_CONSTANT, border);
    } else {
      cv::warpAffine(in.image, result.image, cv::Mat(pixels).rowRange(0, 2), out, cv::INTER_LINEAR, cv::BORDER_CONSTANT,
                     border);
    }
  }
  for (const PixelBox& box : in.boxes) {
    const PixelBox moved = clipped(warped(box, m), out);
    if (is_candidate(box, moved, gain)) result.boxes.push_back(moved);
  }
  return result;
}

void random_hsv(cv::Mat& rgb, const DetectAugment& augment, SplitMix64& rng) {
  if (augment.hsv_h == 0 && augment.hsv_s == 0 && augment.hsv_v == 0) return;
  const double hue = rng.uniform(-1, 1) * augment.hsv_h + 1;
  const double saturation = rng.uniform(-1, 1) * augment.hsv_s + 1;
  const double value = rng.uniform(-1, 1) * augment.hsv_v + 1;
  cv::Mat table(1, 256, CV_8UC3);
  for (int x = 0; x < 256; ++x) {
    // 8-bit hue lives in [0, 180) and wraps around; the others saturate.
    table.at<cv::Vec3b>(x) =
        cv::Vec3b(uint8_t(std::fmod(x * hue, 180.0)), cv::saturate_cast<uint8_t>(std::floor(x * saturation)),
                  cv::saturate_cast<uint8_t>(std::floor(x * value)));
  }
  cv::Mat hsv;
  cv::cvtColor(rgb, hsv, cv::COLOR_RGB2HSV);
  cv::LUT(hsv, table, hsv);
  cv::cvtColor(hsv, rgb, cv::COLOR_HSV2RGB);
}

void random_flips(LabelledImage& sample, const DetectAugment& augment, SplitMix64& rng) {
  const bool up_down = rng.uniform() < augment.flipud;
  const bool left_right = rng.uniform() < augment.fliplr;
  const float w = float(sample.image.cols), h = float(sample.image.rows);
  if (up_down) {
    cv::flip(sample.image, sample.image, 0);
    for (PixelBox& box : sample.boxes) box = {box.cls, box.x1, h - box.y2, box.x2, h - box.y1};
  }
  if (left_right) {
    cv::flip(sample.image, sample.image, 1);
    for (PixelBox& box : sample.boxes) box = {box.cls, w - box.x2, box.y1, w - box.x1, box.y2};
  }
}

}  // namespace trainer
