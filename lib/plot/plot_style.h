// How every picture trainer draws looks: one colour per class, so a class looks the same in
// train_batch*.jpg, predictions, labels.jpg and the curve charts; one shade for counts; and one ink
// and font for the charts' text.
#pragma once
#include <cstdint>
#include <string>

#include <opencv2/core.hpp>

namespace trainer {

// A distinct colour per class (BGR), spread around the hue circle so neighbouring classes differ.
cv::Scalar class_colour(int64_t cls);

// White (0) to dark blue (1), BGR: matplotlib's "Blues" ends, for shares of a count.
cv::Scalar blue_shade(double share);

// The charts' dark grey for text and frames.
inline const cv::Scalar kChartInk(40, 40, 40);

// Chart text: Hershey simplex, thickness 1, anti-aliased, baseline-left at `origin`.
void put_chart_text(cv::Mat& canvas, const std::string& text, cv::Point origin, double scale,
                    const cv::Scalar& colour = kChartInk);
int chart_text_width(const std::string& text, double scale);

// `text` cut to `most` characters, the last one a "~" when cut.
std::string shortened(const std::string& text, size_t most);

}  // namespace trainer
