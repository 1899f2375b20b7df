#include "data/detect/detect_pixel_cache.h"

#include <algorithm>
#include <filesystem>

#include "data/detect/detect_augment.h"
#include "data/pixel_cache.h"
#include "data/read_image.h"
#include "data/resize_image.h"

namespace trainer {

void use_detect_pixel_cache(DetectDataset& data, int64_t imgsz, DetectCopies copies,
                            const PixelCacheSettings& settings) {
  PixelCacheRequest request;
  for (size_t i = 0; i < data.size(); ++i) request.images.push_back(data.path(i));
  const bool letterboxed = copies == DetectCopies::letterboxed;
  request.file = pixel_cache_path(std::filesystem::path(data.path(0)).parent_path(), settings.cache_dir, letterboxed);
  request.purpose = (letterboxed ? "detect: letterbox " : "detect: long side ") + std::to_string(imgsz);
  request.quality = settings.quality;
  // The decode and resize of a sample without the cache (detect_collate.cpp), from the file itself, never a stand-in's pixels: the cache outlives this run's stand-ins.
  const auto make = [&](size_t i) {
    const cv::Size size = data.original_size(i);
    const int long_side = std::max(size.width, size.height);
    if (long_side <= imgsz) return read_image(data.path(i), 3);
    const cv::Mat decoded = read_image(data.path(i), 3, reduction_keeping(long_side, imgsz, data.max_reduction(i)));
    return resize_to(decoded, letterboxed ? letterbox_geometry(size, imgsz, false).resized
                                          : long_side_size(decoded.size(), imgsz));
  };
  data.use_pixel_cache(open_pixel_cache(request, make));
}

}  // namespace trainer
