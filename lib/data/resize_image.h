// Resizing that neither aliases when shrinking nor blurs when enlarging.
#pragma once
#include <opencv2/core.hpp>

namespace trainer {

// Area averaging when both sides shrink, bilinear otherwise; both map pixel centres onto pixel
// centres. Returns `image` itself (no copy) when it already has `size`.
cv::Mat resize_to(const cv::Mat& image, cv::Size size);

}  // namespace trainer
