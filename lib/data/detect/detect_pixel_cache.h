// cache=disk for a detection split, in one file per split: every image kept as Ultralytics'
// load_image makes it for training, its long side resized to imgsz (each side rounded up), or at
// the size the letterbox resizes it to for evaluation (rounded to nearest); images already smaller
// are kept at their own size.
#pragma once
#include <cstdint>

#include "data/detect/detect_dataset.h"
#include "data/pixel_cache.h"

namespace trainer {

enum class DetectCopies { training, letterboxed };

// Builds the split's cache when it is missing or stale (pixel_cache.h), then makes `data` read
// from it.
void use_detect_pixel_cache(DetectDataset& data, int64_t imgsz, DetectCopies copies,
                            const PixelCacheSettings& settings);

}  // namespace trainer
