// Detection image transforms that move boxes with the pixels: Ultralytics' load resize, letterbox,
// 4-image mosaic, random perspective, HSV gains and flips. Boxes use continuous pixel
// coordinates (pixel column i spans [i, i + 1)), the convention cv::resize follows; the warps
// are shifted by half a pixel to follow it too, so a box stays on its object to float precision
// under resizing, padding, flips and warps. Randomness comes from the caller's SplitMix64, so a
// sample is a pure function of its seed.
#pragma once
#include <torch/torch.h>
#include <opencv2/core.hpp>

#include <cstdint>
#include <limits>
#include <vector>

#include "data/detect/yolo_labels.h"
#include "data/rng.h"

namespace trainer {

// Ultralytics' training defaults (cfg/default.yaml).
struct DetectAugment {
  int64_t imgsz = 640;  ///< side of the square input in pixels, >= 1
  bool train = true;    ///< false: letterbox only (validation, prediction)
  double mosaic = 1.0;  ///< probability of a 4-image mosaic, [0, 1]
  /// First epoch (0-based) trained without mosaic and mixup, >= 0; by default they never close.
  /// Ultralytics' close_mosaic=N is epochs - N.
  int64_t close_mosaic_epoch = std::numeric_limits<int64_t>::max();
  double mixup = 0.0;        ///< probability of blending in a second sample (MixUp), [0, 1]
  double degrees = 0.0;      ///< rotation drawn from ±degrees, [0, 180]
  double translate = 0.1;    ///< translation drawn from ±translate of imgsz, [0, 1]
  double scale = 0.5;        ///< scale gain drawn from 1 ± scale, [0, 1)
  double shear = 0.0;        ///< x and y shear drawn from ±shear degrees, [0, 90)
  double perspective = 0.0;  ///< perspective coefficients drawn from ±perspective, [0, 0.001]
  double hsv_h = 0.015;      ///< hue gain drawn from 1 ± hsv_h, [0, 1]
  double hsv_s = 0.7;        ///< saturation gain drawn from 1 ± hsv_s, [0, 1]
  double hsv_v = 0.4;        ///< value gain drawn from 1 ± hsv_v, [0, 1]
  double flipud = 0.0;       ///< vertical flip probability, [0, 1]
  double fliplr = 0.5;       ///< horizontal flip probability, [0, 1]
  uint8_t pad_value = 114;   ///< grey of letterbox, mosaic and warp borders, [0, 255]
  int64_t max_boxes = 100;   ///< target rows per image; the largest boxes are kept, >= 1
  bool scaleup = false;      ///< evaluation: enlarge images smaller than imgsz (else pad them)
};

struct PixelBox {
  int64_t cls = 0;
  float x1 = 0, y1 = 0, x2 = 0, y2 = 0;  ///< top-left and bottom-right corners in pixels
  float width() const { return x2 - x1; }
  float height() const { return y2 - y1; }
};

struct LabelledImage {
  cv::Mat image;  ///< RGB uint8
  std::vector<PixelBox> boxes;
};

std::vector<PixelBox> to_pixel_boxes(const std::vector<YoloBox>& boxes, cv::Size size);

// The size with the long side `side` and the aspect ratio kept, each side rounded up (Ultralytics'
// load_image).
cv::Size long_side_size(cv::Size size, int64_t side);
// Resizes to long_side_size: how mosaic tiles are loaded.
LabelledImage resize_long_side(const LabelledImage& in, int64_t side);

// Where an image lands in a side x side letterbox: scaled to fit, centred, padded.
struct Letterbox {
  cv::Size original;                ///< the image before letterboxing
  cv::Size resized;                 ///< its size inside the square
  double scale_x = 1, scale_y = 1;  ///< resized / original, per axis
  int pad_x = 0, pad_y = 0;         ///< left and top border in pixels
  // Boxes [..., 4] as (x1, y1, x2, y2) in letterbox pixels mapped to the original image and
  // clipped to it: how predictions are reported in the coordinates of the file.
  torch::Tensor to_original(const torch::Tensor& xyxy) const;
  // Boxes in original pixels placed in the letterbox, as letterbox() places the image's.
  std::vector<PixelBox> to_letterbox(const std::vector<PixelBox>& boxes) const;
};
// scaleup = false leaves images smaller than the square at their size (Ultralytics' validation).
Letterbox letterbox_geometry(cv::Size original, int64_t side, bool scaleup);
LabelledImage letterbox(const LabelledImage& in, const Letterbox& geometry, int64_t side, uint8_t pad);
// The letterbox's pixels from any copy of the image geometry was made for (a smaller one from
// the disk cache): resized to geometry.resized and padded.
cv::Mat letterbox_pixels(const cv::Mat& image, const Letterbox& geometry, int64_t side, uint8_t pad);

// Ultralytics' mosaic: four tiles (resize_long_side outputs) around a random centre in the middle
// half of a 2*side square canvas filled with `pad`; boxes are clipped to the canvas and dropped
// when nothing is left of them.
LabelledImage mosaic4(const std::vector<LabelledImage>& tiles, int64_t side, uint8_t pad, SplitMix64& rng);

// Ultralytics' RandomPerspective into an image of size `out`: the input's centre goes to a random
// point of the middle `translate` band, with rotation, scale, shear and perspective drawn from
// the augment ranges around it. A mosaic canvas warped into side x side is thus cropped back.
// Each box becomes the enclosing box of its transformed corners, clipped to the output, and is
// kept only when wider and taller than 2 px, with an aspect ratio below 100, and keeping more
// than 10 % of its area (scaled by the drawn gain) through the clipping.
LabelledImage random_perspective(const LabelledImage& in, cv::Size out, const DetectAugment& augment, SplitMix64& rng);

// Multiplies hue, saturation and value by gains drawn from 1 ± hsv_h/s/v (OpenCV's 8-bit HSV).
void random_hsv(cv::Mat& rgb, const DetectAugment& augment, SplitMix64& rng);

// A vertical flip with probability flipud, then a horizontal one with probability fliplr.
void random_flips(LabelledImage& sample, const DetectAugment& augment, SplitMix64& rng);

}  // namespace trainer
