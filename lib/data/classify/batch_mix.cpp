#include "data/classify/batch_mix.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <opencv2/core.hpp>

#include "data/beta_draw.h"

namespace trainer {
namespace {

// A box of (1 - weight) of the image's area around a uniform centre, clipped to the image.
cv::Rect cutmix_box(int64_t height, int64_t width, double weight, SplitMix64& rng) {
  const double side = std::sqrt(1.0 - weight);
  const auto cut_h = int64_t(double(height) * side), cut_w = int64_t(double(width) * side);
  const auto cy = int64_t(rng.below(uint64_t(height))), cx = int64_t(rng.below(uint64_t(width)));
  const cv::Point top_left(int(std::clamp<int64_t>(cx - cut_w / 2, 0, width)),
                           int(std::clamp<int64_t>(cy - cut_h / 2, 0, height)));
  const cv::Point bottom_right(int(std::clamp<int64_t>(cx + cut_w / 2, 0, width)),
                               int(std::clamp<int64_t>(cy + cut_h / 2, 0, height)));
  return {top_left, bottom_right};
}

void blend_pair(float* a, float* b, int64_t count, float weight) {
  for (int64_t i = 0; i < count; ++i) {
    const float va = a[i], vb = b[i];
    a[i] = weight * va + (1 - weight) * vb;
    b[i] = weight * vb + (1 - weight) * va;
  }
}

void swap_box(float* a, float* b, int64_t channels, int64_t height, int64_t width, const cv::Rect& box) {
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t y = box.y; y < box.y + box.height; ++y) {
      const int64_t row = (c * height + y) * width + box.x;
      std::swap_ranges(a + row, a + row + box.width, b + row);
    }
  }
}

}  // namespace

void mix_batch(Batch& batch, const BatchMix& mix, SplitMix64& rng) {
  TORCH_INTERNAL_ASSERT(mix.enabled() && mix.classes >= 1, "mix_batch without a mixing method");
  TORCH_INTERNAL_ASSERT(batch.input.dim() == 4 && batch.input.is_contiguous() && batch.target.dim() == 1,
                        "mix_batch needs [B, C, H, W] inputs and [B] class indices");
  const int64_t count = batch.size, channels = batch.input.size(1), height = batch.input.size(2),
                width = batch.input.size(3), sample = channels * height * width;
  double weight = 1.0;  // of each sample's own image and label
  if (rng.uniform() < mix.prob) {
    const bool cutmix = mix.cutmix_alpha > 0 && (mix.mixup_alpha <= 0 || rng.uniform() < mix.switch_prob);
    weight = symmetric_beta_draw(cutmix ? mix.cutmix_alpha : mix.mixup_alpha, rng);
    float* input = batch.input.data_ptr<float>();
    if (cutmix) {
      const cv::Rect box = cutmix_box(height, width, weight, rng);
      weight = 1.0 - double(box.area()) / double(height * width);
      for (int64_t b = 0; b < count - 1 - b; ++b) {
        swap_box(input + b * sample, input + (count - 1 - b) * sample, channels, height, width, box);
      }
    } else {
      for (int64_t b = 0; b < count - 1 - b; ++b) {
        blend_pair(input + b * sample, input + (count - 1 - b) * sample, sample, float(weight));
      }
    }
  }
  const float off = float(mix.label_smoothing / double(mix.classes)), on = float(1.0 - mix.label_smoothing) + off;
  torch::Tensor probabilities = torch::full({count, mix.classes}, off, torch::kFloat32);
  float* target = probabilities.data_ptr<float>();
  const int64_t* labels = batch.target.data_ptr<int64_t>();
  for (int64_t b = 0; b < count; ++b) {
    target[b * mix.classes + labels[b]] += float(weight) * (on - off);
    target[b * mix.classes + labels[count - 1 - b]] += float(1.0 - weight) * (on - off);
  }
  batch.target = probabilities;
}

}  // namespace trainer
