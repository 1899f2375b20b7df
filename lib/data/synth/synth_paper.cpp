#include "data/synth/synth_paper.h"

#include <opencv2/imgproc.hpp>

namespace trainer {

cv::Mat ink_on_paper(const cv::Mat& ink, SplitMix64& rng, double inverted) {
  TORCH_INTERNAL_ASSERT(ink.type() == CV_32F, "ink must be CV_32F coverage");
  double paper = rng.uniform(170, 250);
  double tone = rng.uniform(0, 80);
  if (rng.uniform() < inverted) std::swap(paper, tone);
  // A gentle left-to-right shading, as from uneven lighting.
  const double shading = rng.uniform(-20, 20);
  const double noise = rng.uniform(0, 8);
  cv::Mat coverage = ink;
  if (rng.uniform() < 0.5) cv::GaussianBlur(ink, coverage, cv::Size(3, 3), rng.uniform(0.3, 0.9));
  cv::Mat out(ink.size(), CV_8U);
  for (int y = 0; y < ink.rows; ++y) {
    const float* alpha = coverage.ptr<float>(y);
    uint8_t* row = out.ptr<uint8_t>(y);
    for (int x = 0; x < ink.cols; ++x) {
      const double background = paper + shading * (static_cast<double>(x) / std::max(ink.cols - 1, 1) - 0.5);
      // Two uniform draws summed: a cheap bell-shaped noise with mean 0.
      const double grain = noise * (rng.uniform() + rng.uniform() - 1.0);
      const double value = background + (tone - background) * alpha[x] + grain;
      row[x] = cv::saturate_cast<uint8_t>(value);
    }
  }
  return out;
}

}  // namespace trainer
