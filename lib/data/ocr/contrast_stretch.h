// EasyOCR's contrast adjustment of text lines (trainer/dataset.py adjust_contrast_grey, applied by
// its AlignCollate to training and validation lines alike when contrast_adjust > 0).
#pragma once
#include <opencv2/core.hpp>

namespace trainer {

// `image` (uint8, 1 or 3 channels) as EasyOCR's collate hands it on: made grey (PIL's "L"), then,
// when its contrast (p90 − p10) / (p90 + p10) of the grey levels (numpy's linear percentiles) is
// below `target`, stretched to (v − p10 + 25) · 200 / (p90 − p10), clipped to [0, 255] and
// truncated. A line of one grey level has no contrast and turns white, as in EasyOCR. A 3-channel
// image comes back as its grey level in every channel (EasyOCR pads the grey line into an
// RGB-sized tensor). `target` ≤ 0 returns the image unchanged.
cv::Mat stretch_contrast(const cv::Mat& image, double target);

}  // namespace trainer
