// Where a classification sample comes from in its image: the random resized crop of training
// (Inception's, as torchvision, timm and Ultralytics use it), the centre crop of evaluation, and
// the rectangle random erasing blanks (Zhong et al., torchvision's RandomErasing).
#pragma once
#include <opencv2/core.hpp>

#include "data/rng.h"

namespace trainer {

// A region covering [min_area, 1] of the image's area (drawn uniformly) with width/height in
// [3/4, 4/3] (drawn log-uniformly); after 10 draws that do not fit, the centred box of the
// image at the nearest allowed aspect. min_area in (0, 1].
cv::Rect random_resized_crop(cv::Size image, double min_area, SplitMix64& rng);

// The centred square whose side is `fraction` of the image's shorter side (timm's crop_pct,
// Ultralytics' crop_fraction): resized to imgsz it equals resizing the shorter side to
// imgsz / fraction and cutting imgsz out of the middle. fraction in (0, 1].
cv::Rect centre_crop(cv::Size image, double fraction);

// A rectangle of 2–33 % of a side × side sample, divided by `boxes` (timm's area rule when it
// erases several), with height/width in [0.3, 3.3] (log-uniform); an empty one when 10 draws do
// not fit.
cv::Rect random_erasing_box(int64_t side, SplitMix64& rng, int64_t boxes = 1);

}  // namespace trainer
