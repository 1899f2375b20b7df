#include "data/classify/classify_transform.h"

#include <algorithm>
#include <cmath>

#include "data/classify/classify_crop.h"
#include "data/classify/random_erasing.h"
#include "data/read_image.h"
#include "data/resize_image.h"
#include "data/rng.h"

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

// The sample's source region, decoded. Where the dataset knows an image's size before decoding
// it, the region is drawn from that size and a JPEG is decoded at 1/2, 1/4 or 1/8 of each side
// when the region stays at least `side` pixels in both directions: libjpeg scales in the DCT, far
// cheaper than decoding a large photograph whole and shrinking it, and the region is shrunk to
// `side` either way. The draws are the same as from the decoded image's own size.
cv::Mat region_pixels(const ImageDataset& data, size_t index, const ClassifyAugment& augment, SplitMix64& rng) {
  const ImageGeometry geometry = data.geometry(index);
  if (geometry.size.empty()) {
    const cv::Mat image = data.image(index);
    return image(source_region(augment, image.size(), rng));
  }
  const cv::Rect region = source_region(augment, geometry.size, rng);
  const int reduction =
      reduction_keeping(std::min(region.width, region.height), augment.imgsz, geometry.max_reduction);
  const cv::Mat image = data.reduced_image(index, reduction);
  // Edges round to the nearest reduced pixel, so they move by at most half of one (a region keeps
  // at least `side` of them); the clip absorbs a file that changed size since the scan.
  const double sx = double(image.cols) / geometry.size.width, sy = double(image.rows) / geometry.size.height;
  const int x0 = int(std::lround(region.x * sx)), y0 = int(std::lround(region.y * sy));
  const int x1 = int(std::lround(region.br().x * sx)), y1 = int(std::lround(region.br().y * sy));
  const cv::Rect scaled = cv::Rect(x0, y0, x1 - x0, y1 - y0) & cv::Rect(0, 0, image.cols, image.rows);
  return scaled.empty() ? image : image(scaled);
}

// Writes one HWC uint8 image into CHW float planes in a single pass: crop, flip, scale and
// normalise fused, with plain loops so no ATen parallel region opens on a loader thread.
void write_sample(const cv::Mat& image, const Placement& placement, const std::vector<float>& scale,
                  const std::vector<float>& offset, float* out) {
  const int64_t side = image.rows, channels = image.channels();
  const int64_t plane = side * side;
  for (int64_t y = 0; y < side; ++y) {
    const int64_t sy = y + placement.dy;
    const uint8_t* row = sy >= 0 && sy < side ? image.ptr<uint8_t>(int(sy)) : nullptr;
    for (int64_t x = 0; x < side; ++x) {
      const int64_t sx = (placement.flip ? side - 1 - x : x) + placement.dx;
      const bool inside = row && sx >= 0 && sx < side;
      for (int64_t c = 0; c < channels; ++c) {
        const float pixel = inside ? float(row[sx * channels + c]) : 0.0f;
        out[c * plane + y * side + x] = pixel * scale[c] + offset[c];
      }
    }
  }
}

}  // namespace

Loader::Collate make_classify_collate(const ImageDataset& data, ClassifyAugment augment,
                                      Normalization norm, uint64_t seed) {
  const int64_t channels = data.channels();
  TORCH_INTERNAL_ASSERT(augment.imgsz >= 1 && augment.crop_pad >= 0 && augment.scale >= 0 && augment.scale < 1 &&
                            augment.crop_fraction > 0 && augment.crop_fraction <= 1,
                        "bad ClassifyAugment");
  TORCH_INTERNAL_ASSERT(norm.mean.size() == size_t(channels) && norm.std.size() == size_t(channels),
                        "normalisation has ", norm.mean.size(), " channels, data has ", channels);
  // (p / 255 - mean) / std as one multiply-add per pixel.
  std::vector<float> scale, offset;
  for (int64_t c = 0; c < channels; ++c) {
    scale.push_back(float(1.0 / (255.0 * norm.std[c])));
    offset.push_back(float(-norm.mean[c] / norm.std[c]));
  }
  return [&data, augment, scale, offset, seed, channels](const std::vector<size_t>& indices,
                                                          int64_t epoch) {
    const int64_t count = int64_t(indices.size()), side = augment.imgsz;
    Batch batch;
    batch.size = count;
    batch.input = torch::empty({count, channels, side, side}, torch::kFloat32);
    batch.target = torch::empty({count}, torch::kInt64);
    float* input = batch.input.data_ptr<float>();
    int64_t* target = batch.target.data_ptr<int64_t>();
    for (int64_t b = 0; b < count; ++b) {
      const size_t index = indices[size_t(b)];
      SplitMix64 rng(derive_seed(seed, RngStream::augment, {uint64_t(epoch), uint64_t(index)}));
      const Placement placement = draw_placement(augment, rng);
      const cv::Mat region = region_pixels(data, index, augment, rng);
      TORCH_INTERNAL_ASSERT(region.depth() == CV_8U && region.channels() == channels,
                            "dataset image ", index, " breaks the ImageDataset contract");
      cv::Mat sample = resize_to(region, cv::Size(int(side), int(side)));
      if (augment.train && augment.auto_augment.policy != AutoAugmentPolicy::none) {
        SplitMix64 policy_rng(derive_seed(seed, RngStream::auto_augment, {uint64_t(epoch), uint64_t(index)}));
        sample = auto_augment(sample, augment.auto_augment, policy_rng);
      } else if (augment.train && augment.color_jitter.active()) {
        SplitMix64 jitter_rng(derive_seed(seed, RngStream::color_jitter, {uint64_t(epoch), uint64_t(index)}));
        sample = apply_color_jitter(sample, draw_color_jitter(augment.color_jitter, jitter_rng));
      }
      float* out = input + b * channels * side * side;
      write_sample(sample, placement, scale, offset, out);
      if (augment.train) random_erase(augment.erasing, side, channels, rng, out);
      target[b] = data.label(index);
    }
    if (augment.train && augment.mix.enabled()) {
      SplitMix64 rng(derive_seed(seed, RngStream::batch_mix, {uint64_t(epoch), uint64_t(indices.front())}));
      mix_batch(batch, augment.mix, rng);
    }
    return batch;
  };
}

}  // namespace trainer
