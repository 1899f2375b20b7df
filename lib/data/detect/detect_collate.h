// The detection collate step: load, augment (training) or letterbox (evaluation), and stack a
// batch of fixed shape.
//   input   uint8 [B, 3, imgsz, imgsz]: RGB pixels; the task scales them by 1 / 255 (no mean or std,
//           Ultralytics) where the step runs (data/normalized_input.h)
//   target  float32 [B, max_boxes, 5]: rows (class, cx, cy, w, h) in input pixels; unused rows
//           are (-1, 0, 0, 0, 0)
//   dropped_boxes: objects left out because an image had more than max_boxes; the largest
//           boxes are kept
#pragma once
#include <cstdint>
#include <vector>

#include "data/detect/detect_augment.h"
#include "data/detect/detect_dataset.h"
#include "data/detect/image_memo.h"
#include "data/loader.h"

namespace trainer {

// Training (augment.train): with probability `mosaic`, and only in epochs before
// close_mosaic_epoch, the sample and three partners drawn from `mosaic_pool` (dataset indices;
// empty = the whole dataset, so a `fraction` subset can keep to itself) form a mosaic cropped
// back by the perspective warp; otherwise the sample is letterboxed and warped. With probability
// `mixup` (also only before close_mosaic_epoch) a partner from the pool, placed and warped the
// same way, is blended in with a Beta(32, 32) weight and its boxes added. HSV gains and flips
// follow. Each sample's draws come from a generator seeded by (seed, epoch, index), so a
// batch is bit-identical for any worker count and a resumed run replays it.
// Training loads every image as Ultralytics' load_image does, its long side resized to imgsz,
// before the mosaic or the letterbox.
// Evaluation: letterbox only. Map predictions back with
// letterbox_geometry(data.original_size(i), imgsz, scaleup).to_original(...), and take the
// ground truth for metrics from data.boxes(i), which max_boxes never truncates.
// With `memo` (one slot per image of `data`), the resized training images, or the letterboxed
// evaluation images, are kept after their first decode; the batches are the same as without it.
// `data` and `memo` must outlive the returned function.
Loader::Collate make_detect_collate(const DetectDataset& data, DetectAugment augment, uint64_t seed,
                                    std::vector<size_t> mosaic_pool = {}, const ImageMemo* memo = nullptr);

// One sample exactly as the collate builds it, before it becomes tensors (tests, batch plots).
LabelledImage detect_sample(const DetectDataset& data, const DetectAugment& augment, uint64_t seed, int64_t epoch,
                            size_t index, const std::vector<size_t>& mosaic_pool, const ImageMemo* memo = nullptr);

}  // namespace trainer
