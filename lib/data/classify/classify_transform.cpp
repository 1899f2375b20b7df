#include "data/classify/classify_transform.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "data/classify/classify_crop.h"
#include "data/normalized_input.h"
#include "data/classify/random_erasing.h"
#include "data/read_image.h"
#include "data/resize_image.h"
#include "data/rng.h"

#include <opencv2/core.hpp>

namespace trainer {
namespace {

// One training sample's pad offset and flip. They are drawn first, so turning scale or erasing
// on leaves every sample's offset and flip as they were.
struct Placement {
  int64_t dx = 0, dy = 0;  // crop offset from the unpadded origin, in [-crop_pad, crop_pad]
  bool flip = false;
};

Placement draw_placement(const ClassifyAugment& augment, SplitMix64& rng) {
  Placement placement;
  if (!augment.train) return placement;
  const uint64_t span = uint64_t(2 * augment.crop_pad + 1);
  placement.dx = int64_t(rng.below(span)) - augment.crop_pad;
  placement.dy = int64_t(rng.below(span)) - augment.crop_pad;
  placement.flip = rng.uniform() < augment.fliplr;
  return placement;
}

cv::Rect source_region(const ClassifyAugment& augment, cv::Size image, SplitMix64& rng) {
  if (!augment.train) return centre_crop(image, augment.crop_fraction);
  if (augment.scale > 0) return random_resized_crop(image, 1.0 - augment.scale, rng);
  return centre_crop(image, 1.0);
}

// Where the sample comes from: drawn from the size the dataset knows before decoding (then a
// JPEG is decoded at 1/2, 1/4 or 1/8 of each side when the region stays at least `side` pixels
// in both directions: libjpeg scales in the DCT, far cheaper than decoding a large photograph
// whole and shrinking it, and the region is shrunk to `side` either way), else from the decoded
// image's own size. The draws are the same either way.
struct SourceRegion {
  cv::Rect region;     // empty: only decoding the whole image tells its size
  int reduction = 1;
};

SourceRegion draw_region(const ImageGeometry& geometry, const ClassifyAugment& augment, SplitMix64& rng) {
  if (geometry.size.empty()) return {};
  const cv::Rect region = source_region(augment, geometry.size, rng);
  return {region, reduction_keeping(std::min(region.width, region.height), augment.imgsz, geometry.max_reduction)};
}

// The region's pixels; only its rows and columns are decoded where the dataset can
// (ImageDataset::region_image).
cv::Mat region_pixels(const ImageDataset& data, size_t index, const SourceRegion& source,
                      const ClassifyAugment& augment, SplitMix64& rng) {
  if (source.region.empty()) {
    const cv::Mat image = data.image(index);
    return image(source_region(augment, image.size(), rng));
  }
  return data.region_image(index, source.region, source.reduction);
}

// Writes one HWC uint8 image, already flipped, into CHW planes in a single pass with the pad
// shift, each value through `level` (channel, pixel) -> Out, with plain loops so no ATen parallel
// region opens on a loader thread. The shift is the placement's as seen before the flip
// (mirrored after it).
template <typename Out, typename Level>
void write_sample(const cv::Mat& image, const Placement& placement, const Level& level, Out* out) {
  const int64_t side = image.rows, channels = image.channels();
  const int64_t plane = side * side;
  const int64_t dx = placement.flip ? -placement.dx : placement.dx;
  for (int64_t y = 0; y < side; ++y) {
    const int64_t sy = y + placement.dy;
    const uint8_t* row = sy >= 0 && sy < side ? image.ptr<uint8_t>(int(sy)) : nullptr;
    for (int64_t x = 0; x < side; ++x) {
      const int64_t sx = x + dx;
      const bool inside = row && sx >= 0 && sx < side;
      for (int64_t c = 0; c < channels; ++c) {
        out[c * plane + y * side + x] = level(c, inside ? row[sx * channels + c] : uint8_t(0));
      }
    }
  }
}

// Adds the time since the last lap to a stage of `times`; free when there are none to keep.
class StageClock {
 public:
  explicit StageClock(ClassifyStageTimes* times) : times_(times) {
    if (times_) last_ = std::chrono::steady_clock::now();
  }
  void lap(double ClassifyStageTimes::*stage) {
    if (!times_) return;
    const auto now = std::chrono::steady_clock::now();
    times_->*stage += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }

 private:
  ClassifyStageTimes* times_;
  std::chrono::steady_clock::time_point last_;
};

// Sample `index`: decoded, cropped, resized, flipped and jittered (or given its policy), uint8
// HWC at side x side, with the placement it is written into the batch at.
cv::Mat augmented_sample(const ImageDataset& data, size_t index, const ClassifyAugment& augment, uint64_t seed,
                         int64_t epoch, SplitMix64& rng, Placement& placement, StageClock& clock) {
  placement = draw_placement(augment, rng);
  const SourceRegion source = draw_region(data.geometry(index), augment, rng);
  clock.lap(&ClassifyStageTimes::crop);
  const cv::Mat region = region_pixels(data, index, source, augment, rng);
  TORCH_INTERNAL_ASSERT(region.depth() == CV_8U && region.channels() == data.channels(), "dataset image ", index,
                        " breaks the ImageDataset contract");
  clock.lap(&ClassifyStageTimes::decode);
  const int side = int(augment.imgsz);
  cv::Mat sample = resize_averaging(region, cv::Size(side, side));
  clock.lap(&ClassifyStageTimes::resize);
  if (augment.train && augment.auto_augment.policy != AutoAugmentPolicy::none) {
    SplitMix64 policy_rng(derive_seed(seed, RngStream::auto_augment, {uint64_t(epoch), uint64_t(index)}));
    sample = auto_augment(sample, augment.auto_augment, policy_rng);
  } else if (augment.train && augment.color_jitter.active()) {
    SplitMix64 jitter_rng(derive_seed(seed, RngStream::color_jitter, {uint64_t(epoch), uint64_t(index)}));
    sample = apply_color_jitter(sample, draw_color_jitter(augment.color_jitter, jitter_rng));
  }
  clock.lap(&ClassifyStageTimes::jitter);
  if (placement.flip) {
    cv::Mat flipped;  // never in place: `sample` may be the dataset's own pixels
    cv::flip(sample, flipped, 1);
    sample = flipped;
  }
  clock.lap(&ClassifyStageTimes::flip);
  return sample;
}

}  // namespace

Loader::Collate make_classify_collate(const ImageDataset& data, ClassifyAugment augment, Normalization norm,
                                      uint64_t seed, ClassifyStageTimes* times) {
  const int64_t channels = data.channels();
  TORCH_INTERNAL_ASSERT(augment.imgsz >= 1 && augment.crop_pad >= 0 && augment.scale >= 0 && augment.scale < 1 &&
                            augment.crop_fraction > 0 && augment.crop_fraction <= 1,
                        "bad ClassifyAugment");
  TORCH_INTERNAL_ASSERT(norm.mean.size() == size_t(channels) && norm.std.size() == size_t(channels),
                        "normalisation has ", norm.mean.size(), " channels, data has ", channels);
  const NormalizationSteps steps = normalization_steps(norm);
  const std::vector<float>& scale = steps.scale;
  const std::vector<float>& offset = steps.offset;
  // Erasing and mixing work on normalised values; otherwise the batch leaves as pixels.
  const bool pixels = !(augment.train && (augment.erasing.probability > 0 || augment.mix.enabled()));
  return [&data, augment, scale, offset, seed, channels, times, pixels](const std::vector<size_t>& indices, int64_t epoch) {
    const int64_t count = int64_t(indices.size()), side = augment.imgsz;
    Batch batch;
    batch.size = count;
    batch.input = torch::empty({count, channels, side, side}, pixels ? torch::kUInt8 : torch::kFloat32);
    batch.target = torch::empty({count}, torch::kInt64);
    int64_t* target = batch.target.data_ptr<int64_t>();
    StageClock clock(times);
    for (int64_t b = 0; b < count; ++b) {
      const size_t index = indices[size_t(b)];
      SplitMix64 rng(derive_seed(seed, RngStream::augment, {uint64_t(epoch), uint64_t(index)}));
      Placement placement;
      const cv::Mat sample = augmented_sample(data, index, augment, seed, epoch, rng, placement, clock);
      const int64_t at = b * channels * side * side;
      if (pixels) {
        write_sample(sample, placement, [](int64_t, uint8_t p) { return p; }, batch.input.data_ptr<uint8_t>() + at);
      } else {
        // (p / 255 - mean) / std as one multiply-add per pixel, as normalised_input computes it.
        float* out = batch.input.data_ptr<float>() + at;
        write_sample(sample, placement, [&](int64_t c, uint8_t p) { return float(p) * scale[c] + offset[c]; }, out);
        if (augment.train) random_erase(augment.erasing, side, channels, rng, out);
      }
      target[b] = data.label(index);
      clock.lap(&ClassifyStageTimes::collate);
    }
    if (augment.train && augment.mix.enabled()) {
      SplitMix64 rng(derive_seed(seed, RngStream::batch_mix, {uint64_t(epoch), uint64_t(indices.front())}));
      mix_batch(batch, augment.mix, rng);
    }
    clock.lap(&ClassifyStageTimes::collate);
    if (times) times->samples += count;
    return batch;
  };
}

}  // namespace trainer
