// How generated text looks scanned: ink (a coverage mask) laid on paper of a random tone, with
// random blur and sensor noise, so recognizers trained on it do not learn one clean rendering.
#pragma once
#include <opencv2/core.hpp>

#include "data/rng.h"

namespace trainer {

// `ink`: CV_32F coverage in [0, 1]. Returns CV_8U grey: mostly dark ink on light paper, with
// probability `inverted` light ink on dark paper.
cv::Mat ink_on_paper(const cv::Mat& ink, SplitMix64& rng, double inverted = 0.0);

}  // namespace trainer
