#include "data/detect/detect_collate.h"

#include <algorithm>
#include <numeric>

#include "data/beta_draw.h"
#include "data/read_image.h"
#include "data/resize_image.h"

namespace trainer {
namespace {

// The image's pixels. With shrink_to > 0 the caller shrinks the long side to that many pixels, so
// a JPEG whose long side keeps that many at 1/2, 1/4 or 1/8 is decoded at that fraction (libjpeg's
// DCT scaling, a fraction of the work of decoding a large photograph whole). Boxes are placed by
// the callers, from the labels and the size the image ends at.
cv::Mat decode(const DetectDataset& data, size_t index, int64_t shrink_to = 0) {
  const cv::Size size = data.original_size(index);
  const int reduction = shrink_to > 0 ? reduction_keeping(std::max(size.width, size.height), shrink_to,
                                                          data.max_reduction(index))
                                      : 1;
  return data.image(index, reduction);
}

// A training sample's source, as Ultralytics' load_image makes it: the image with its long side
// resized to imgsz, its boxes in those pixels. With a memo the resized image is kept after its
// first decode; the boxes always come from the YOLO labels and the resized size, so a sample is
// the same with the memo as without.
LabelledImage training_source(const DetectDataset& data, size_t index, int64_t side, const ImageMemo* memo) {
  const auto make = [&] {
    const cv::Mat decoded = decode(data, index, side);
    return resize_to(decoded, long_side_size(decoded.size(), side));
  };
  cv::Mat image = memo ? memo->get(index, make) : make();
  std::vector<PixelBox> boxes = to_pixel_boxes(data.boxes(index), image.size());
  return {std::move(image), std::move(boxes)};
}

// Evaluation decodes whole (or reads the disk cache's copy, already at the letterbox's size), so
// predictions map back through letterbox_geometry(original_size); with a memo the letterboxed
// image is kept (it has no random part).
LabelledImage evaluation_sample(const DetectDataset& data, size_t index, const DetectAugment& augment,
                                const ImageMemo* memo) {
  // The geometry after the decode: a file found unreadable there changes the sample's size to its stand-in's.
  const auto geometry_now = [&] {
    return letterbox_geometry(data.original_size(index), augment.imgsz, augment.scaleup);
  };
  const auto make = [&] {
    return letterbox_pixels(decode(data, index), geometry_now(), augment.imgsz, augment.pad_value);
  };
  cv::Mat image = memo ? memo->get(index, make) : make();
  const Letterbox geometry = geometry_now();
  std::vector<PixelBox> boxes = geometry.to_letterbox(to_pixel_boxes(data.boxes(index), geometry.original));
  return {std::move(image), std::move(boxes)};
}

LabelledImage mosaic_of(const DetectDataset& data, const DetectAugment& augment, size_t index,
                        const std::vector<size_t>& pool, const ImageMemo* memo, SplitMix64& rng) {
  std::vector<LabelledImage> tiles;
  tiles.push_back(training_source(data, index, augment.imgsz, memo));
  for (int partner = 0; partner < 3; ++partner) {
    const size_t other = pool.empty() ? size_t(rng.below(data.size())) : pool[rng.below(pool.size())];
    tiles.push_back(training_source(data, other, augment.imgsz, memo));
  }
  return mosaic4(tiles, augment.imgsz, augment.pad_value, rng);
}

// HWC uint8 into CHW uint8 planes (the task scales them to [0, 1] where the step runs), with
// plain loops: no ATen parallel region may open on a loader thread.
void write_input(const cv::Mat& image, uint8_t* out) {
  const int64_t plane = int64_t(image.rows) * image.cols;
  for (int y = 0; y < image.rows; ++y) {
    const uint8_t* row = image.ptr<uint8_t>(y);
    for (int x = 0; x < image.cols; ++x) {
      for (int c = 0; c < 3; ++c) out[c * plane + int64_t(y) * image.cols + x] = row[3 * x + c];
    }
  }
}

// Rows for the largest boxes first, so overflow drops the smallest; returns how many were dropped.
int64_t write_target(const std::vector<PixelBox>& boxes, int64_t rows, float* out) {
  std::vector<size_t> order(boxes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return boxes[a].width() * boxes[a].height() > boxes[b].width() * boxes[b].height();
  });
  const size_t kept = std::min(order.size(), size_t(rows));
  for (int64_t row = 0; row < rows; ++row) {
    float* values = out + row * 5;
    if (size_t(row) >= kept) {
      values[0] = -1, values[1] = values[2] = values[3] = values[4] = 0;
      continue;
    }
    const PixelBox& box = boxes[order[size_t(row)]];
    values[0] = float(box.cls);
    values[1] = (box.x1 + box.x2) / 2, values[2] = (box.y1 + box.y2) / 2;
    values[3] = box.width(), values[4] = box.height();
  }
  return int64_t(boxes.size() - kept);
}

// Mosaic (or the letterbox) and the perspective warp: Ultralytics' pre_transform, which MixUp
// applies to its partner as well.
LabelledImage placed_and_warped(const DetectDataset& data, const DetectAugment& augment, int64_t epoch, size_t index,
                                const std::vector<size_t>& pool, const ImageMemo* memo, SplitMix64& rng) {
  const int64_t side = augment.imgsz;
  const bool mosaic = rng.uniform() < augment.mosaic && epoch < augment.close_mosaic_epoch;
  LabelledImage placed;
  if (mosaic) {
    placed = mosaic_of(data, augment, index, pool, memo, rng);
  } else {
    const LabelledImage source = training_source(data, index, side, memo);
    placed = letterbox(source, letterbox_geometry(source.image.size(), side, true), side, augment.pad_value);
  }
  return random_perspective(placed, cv::Size(int(side), int(side)), augment, rng);
}

// MixUp as Ultralytics applies it to detection: with probability `mixup`, while mosaic is open, a
// partner from the pool goes through the same placement and warp, the two are blended with a
// weight drawn from Beta(32, 32) (rounded; Ultralytics truncates), and the partner's boxes join.
// Its draws come from a stream of their own, so the sample's other draws stay those of a run
// without mixup.
void mix_up(LabelledImage& sample, const DetectDataset& data, const DetectAugment& augment, uint64_t seed,
            int64_t epoch, size_t index, const std::vector<size_t>& pool, const ImageMemo* memo) {
  if (augment.mixup <= 0 || epoch >= augment.close_mosaic_epoch) return;
  SplitMix64 rng(derive_seed(seed, RngStream::detect_mixup, {uint64_t(epoch), uint64_t(index)}));
  if (rng.uniform() >= augment.mixup) return;
  const size_t other = pool.empty() ? size_t(rng.below(data.size())) : pool[rng.below(pool.size())];
  const LabelledImage partner = placed_and_warped(data, augment, epoch, other, pool, memo, rng);
  const double weight = symmetric_beta_draw(32.0, rng);
  cv::addWeighted(sample.image, weight, partner.image, 1.0 - weight, 0.0, sample.image);
  sample.boxes.insert(sample.boxes.end(), partner.boxes.begin(), partner.boxes.end());
}

}  // namespace

LabelledImage detect_sample(const DetectDataset& data, const DetectAugment& augment, uint64_t seed, int64_t epoch,
                            size_t index, const std::vector<size_t>& mosaic_pool, const ImageMemo* memo) {
  if (!augment.train) return evaluation_sample(data, index, augment, memo);
  SplitMix64 rng(derive_seed(seed, RngStream::augment, {uint64_t(epoch), uint64_t(index)}));
  LabelledImage sample = placed_and_warped(data, augment, epoch, index, mosaic_pool, memo, rng);
  mix_up(sample, data, augment, seed, epoch, index, mosaic_pool, memo);
  random_hsv(sample.image, augment, rng);
  random_flips(sample, augment, rng);
  return sample;
}

Loader::Collate make_detect_collate(const DetectDataset& data, DetectAugment augment, uint64_t seed,
                                    std::vector<size_t> mosaic_pool, const ImageMemo* memo) {
  TORCH_INTERNAL_ASSERT(augment.imgsz >= 1 && augment.max_boxes >= 1, "bad DetectAugment");
  for (const size_t index : mosaic_pool) TORCH_INTERNAL_ASSERT(index < data.size(), "mosaic_pool beyond the dataset");
  TORCH_INTERNAL_ASSERT(!memo || memo->size() == data.size(), "a memo of another data set");
  return [&data, augment, seed, pool = std::move(mosaic_pool), memo](const std::vector<size_t>& indices,
                                                                      int64_t epoch) {
    const int64_t count = int64_t(indices.size()), side = augment.imgsz, rows = augment.max_boxes;
    Batch batch;
    batch.size = count;
    batch.input = torch::empty({count, 3, side, side}, torch::kUInt8);
    batch.target = torch::empty({count, rows, 5}, torch::kFloat32);
    uint8_t* input = batch.input.data_ptr<uint8_t>();
    float* target = batch.target.data_ptr<float>();
    for (int64_t b = 0; b < count; ++b) {
      const LabelledImage sample = detect_sample(data, augment, seed, epoch, indices[size_t(b)], pool, memo);
      write_input(sample.image, input + b * 3 * side * side);
      batch.dropped_boxes += write_target(sample.boxes, rows, target + b * rows * 5);
    }
    return batch;
  };
}

}  // namespace trainer
