// The colours every picture trainer draws shares, so a class looks the same in train_batch*.jpg,
// predictions, labels.jpg and the curve charts, and counts are shaded alike.
#pragma once
#include <cstdint>

#include <opencv2/core/types.hpp>

namespace trainer {

// A distinct colour per class (BGR), spread around the hue circle so neighbouring classes differ.
cv::Scalar class_colour(int64_t cls);

// White (0) to dark blue (1), BGR: matplotlib's "Blues" ends, for shares of a count.
cv::Scalar blue_shade(double share);

}  // namespace trainer
