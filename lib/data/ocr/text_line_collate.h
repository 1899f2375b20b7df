// The recognition collate step, EasyOCR's AlignCollate with keep-ratio padding: each image is
// resized to height img_h keeping its aspect (width capped at img_w), normalised to [-1, 1], and
// padded on the right to the batch's bucket width by repeating its last column.
#pragma once
#include <opencv2/core.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "data/batch.h"
#include "data/loader.h"
#include "data/ocr/charset.h"
#include "data/ocr/ocr_dataset.h"
#include "data/ocr/text_line_augment.h"

namespace trainer {

struct TextLineShape {
  int64_t img_h = 64;
  int64_t img_w = 600;
  std::vector<int64_t> bucket_widths;  ///< ascending, the last = img_w
  int64_t max_label_length = 34;       ///< columns of the padded target
};

// Images (uint8, all with the same channel count) into a batch of uint8 pixels padded to the
// bucket that holds the widest of them; the task normalises them as EasyOCR does ((x / 255 - 0.5)
// / 0.5) where the step runs (normalized_input.h). `labels`, when given, fill target [B, max_label_length] (class indices,
// zero-padded) and target_lengths [B]; their characters must be in `charset`. With an active
// `augment`, image i is distorted after resizing by a generator seeded with seeds[i].
Batch collate_text_lines(const std::vector<cv::Mat>& images, const std::vector<std::u32string>* labels,
                         const Charset& charset, const TextLineShape& shape, const TextLineAugment& augment = {},
                         const std::vector<uint64_t>& seeds = {});

// A Loader collate over `data`; both must outlive it. Each sample's distortion is seeded by
// (seed, epoch, dataset index), so batches do not depend on the worker count and a resumed run
// replays them. The default augment is none, as EasyOCR's trainer.
Loader::Collate make_text_line_collate(const OcrDataset& data, const Charset& charset, TextLineShape shape,
                                       TextLineAugment augment = {}, uint64_t seed = 0);

}  // namespace trainer
