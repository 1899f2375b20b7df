// Random distortions of text lines for training: slant, rotation and elastic warping (Simard et
// al., 2003) make a recognizer trained on a few thousand writers' glyphs read unseen handwriting.
// EasyOCR's trainer has none, so all are off by default.
#pragma once
#include <opencv2/core.hpp>

#include "data/rng.h"

namespace trainer {

struct TextLineAugment {
  double degrees = 0;  ///< rotation drawn from +-degrees
  double shear = 0;    ///< horizontal shear (slant) drawn from +-shear degrees
  double elastic = 0;  ///< elastic warping: the largest displacement in pixels, 0 = off
  bool active() const { return degrees > 0 || shear > 0 || elastic > 0; }
};

// `line` (uint8, 1 or 3 channels) distorted about its centre at the same size; pixels pulled from
// outside repeat the border, as the collate's right padding does.
cv::Mat augment_text_line(const cv::Mat& line, const TextLineAugment& augment, SplitMix64& rng);

}  // namespace trainer
