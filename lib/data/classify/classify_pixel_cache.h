// cache=disk for a classification split: every image kept with the short side its crops can use,
// in one file per split (pixel_cache.h), read through an ImageDataset that looks like the source
// with smaller images.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>

#include "data/classify/classify_transform.h"
#include "data/image_dataset.h"
#include "data/pixel_cache.h"

namespace trainer {

// The short side a copy needs so that no crop of `augment` has to enlarge what it could have
// taken from the source: training's random resized crop at its smallest area (1 - scale) keeps
// imgsz / sqrt(1 - scale) (rounded up), its centred square imgsz; evaluation's centred square of
// crop_fraction imgsz / crop_fraction. 0 when a crop may take an arbitrarily small area (keep the
// source whole).
int64_t cached_short_side(const ClassifyAugment& augment);

// `source` reading its images from the split's cache, built first when missing or stale: images
// whose short side exceeds short_side (0 = none) are shrunk to it, the rest kept at their size.
// `split_folder` is where the cache lives without cache_dir (beside it), `evaluation` whether
// evaluation reads it (pixel_cache_path). Data held in memory (no files) is returned as it is.
std::unique_ptr<ImageDataset> with_pixel_cache(std::unique_ptr<ImageDataset> source,
                                               const std::filesystem::path& split_folder, bool evaluation,
                                               int64_t short_side, const PixelCacheSettings& settings);

}  // namespace trainer
