#include "data/classify/random_erasing.h"

#include <algorithm>
#include <cmath>

#include "data/beta_draw.h"
#include "data/classify/classify_crop.h"

namespace trainer {
namespace {

// The box's fill: per channel one value (const 0, rand a normal draw) or, in pixel mode, one
// normal draw per pixel, channel-major as timm's (C, h, w) tensor.
void fill_box(const cv::Rect& box, ErasingMode mode, int64_t side, int64_t channels, SplitMix64& rng, float* sample) {
  for (int64_t c = 0; c < channels; ++c) {
    const float channel_value = mode == ErasingMode::rand ? float(normal_draw(rng)) : 0.0f;
    for (int64_t y = box.y; y < box.y + box.height; ++y) {
      float* row = sample + c * side * side + y * side + box.x;
      if (mode != ErasingMode::pixel) {
        std::fill_n(row, box.width, channel_value);
        continue;
      }
      for (int x = 0; x < box.width; ++x) row[x] = float(normal_draw(rng));
    }
  }
}

}  // namespace

void random_erase(const RandomErasing& erasing, int64_t side, int64_t channels, SplitMix64& rng, float* sample) {
  if (erasing.probability <= 0 || rng.uniform() >= erasing.probability) return;
  const int64_t boxes = erasing.max_boxes > 1 ? 1 + int64_t(rng.below(uint64_t(erasing.max_boxes))) : 1;
  for (int64_t k = 0; k < boxes; ++k) {
    const cv::Rect box = random_erasing_box(side, rng, boxes);
    if (!box.empty()) fill_box(box, erasing.mode, side, channels, rng, sample);
  }
}

}  // namespace trainer
