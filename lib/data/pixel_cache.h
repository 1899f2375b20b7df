// Building and opening a split's disk cache (`cache=disk`, pixel_cache_file.h): once per set of
// files and sizes, by one process while the others on the machine (ranks, a second run) wait.
#pragma once
#include <opencv2/core.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "data/pixel_cache_file.h"

namespace trainer {

// The recipe's side of it (cache_dir, cache_quality).
struct PixelCacheSettings {
  std::string cache_dir;  ///< "" = beside each split's images
  int quality = 95;       ///< JPEG quality of the copies
};

struct PixelCacheRequest {
  std::filesystem::path file;       ///< the cache file (pixel_cache_path)
  std::vector<std::string> images;  ///< the split's image files, in the dataset's order
  std::string purpose;              ///< what the copies are made for ("detect: long side 640"), part of the key
  int quality = 95;                 ///< JPEG quality of the copies, 1-100
};

// The key a cache file is valid for: a format version, the purpose and quality, and every
// image's name, size and modification time, so that any change to them rebuilds it.
uint64_t pixel_cache_key(const PixelCacheRequest& request);

// Where a split's cache lives: `beside` (the split's folder) with ".trainer-pixels" appended, or
// ".eval.trainer-pixels" for the copies evaluation reads (a data file may name one folder for
// both splits); with cache_dir set, a file in it named after that folder and a digest of its
// absolute path (so the splits of several data sets can share one local disk).
std::filesystem::path pixel_cache_path(const std::filesystem::path& beside, const std::string& cache_dir,
                                       bool evaluation);

// The request's cache, mapped. When the file is missing or was built for another key, it is
// built first: make(i) gives image i's pixels as they are to be kept (empty when the file cannot
// be read; called from several threads at once), and the file is written under a temporary name
// and renamed into place, holding an flock on `<file>.lock` meanwhile, so a process that finds the
// lock taken waits and then maps what the other built. Throws UserError naming the file when its
// folder cannot be created or written.
std::shared_ptr<const PixelCacheFile> open_pixel_cache(const PixelCacheRequest& request,
                                                       const std::function<cv::Mat(size_t)>& make);

}  // namespace trainer
