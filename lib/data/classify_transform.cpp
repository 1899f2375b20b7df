#include "data/classify_transform.h"

#include <opencv2/imgproc.hpp>

#include "data/rng.h"

namespace trainer {
namespace {

struct Placement {
  int64_t dx = 0, dy = 0;  // crop offset from the unpadded origin, in [-crop_pad, crop_pad]
  bool flip = false;
};

Placement draw_placement(const ClassifyAugment& augment, uint64_t seed, int64_t epoch, size_t index) {
  Placement placement;
  if (!augment.train) return placement;
  SplitMix64 rng(derive_seed(seed, RngStream::augment, {uint64_t(epoch), uint64_t(index)}));
  const uint64_t span = uint64_t(2 * augment.crop_pad + 1);
  placement.dx = int64_t(rng.below(span)) - augment.crop_pad;
  placement.dy = int64_t(rng.below(span)) - augment.crop_pad;
  placement.flip = rng.uniform() < augment.fliplr;
  return placement;
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
  TORCH_INTERNAL_ASSERT(augment.imgsz >= 1 && augment.crop_pad >= 0, "bad ClassifyAugment");
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
      cv::Mat image = data.image(index);
      TORCH_INTERNAL_ASSERT(image.depth() == CV_8U && image.channels() == channels,
                            "dataset image ", index, " breaks the ImageDataset contract");
      if (image.rows != side || image.cols != side) {
        cv::resize(image, image, cv::Size(int(side), int(side)), 0, 0, cv::INTER_LINEAR);
      }
      write_sample(image, draw_placement(augment, seed, epoch, index), scale, offset,
                   input + b * channels * side * side);
      target[b] = data.label(index);
    }
    return batch;
  };
}

}  // namespace trainer
