// A detection split on disk in the YOLO layout: image files (list_images) and their label files
// (yolo_labels.h). Construction verifies that every image decodes and parses every label file,
// or reads the result of a previous run from the label cache (label_cache.h).
#pragma once
#include <opencv2/core.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/detect/yolo_labels.h"
#include "data/pixel_cache_file.h"
#include "data/stand_in_images.h"

namespace trainer {

struct DetectDataOptions {
  int64_t classes = 0;             ///< class count of the data file (its names), >= 1
  bool single_class = false;       ///< every box becomes class 0 once checked against `classes` (single_cls)
  bool strict = false;             ///< a bad label line is a UserError instead of a warning and a skipped line
  double max_bad_fraction = 0.01;  ///< share of undecodable images tolerated before failing, [0, 1]
  bool cache = true;               ///< read and write the label cache beside the labels
};

struct DetectScanSummary {
  int64_t images = 0;          ///< usable images
  int64_t unreadable = 0;      ///< images left out because they cannot be decoded
  int64_t backgrounds = 0;     ///< usable images without objects: no label file, an empty one, or only bad lines
  int64_t missing_labels = 0;  ///< usable images without a label file
  int64_t objects = 0;         ///< boxes over all usable images
  int64_t bad_lines = 0;       ///< label lines left out (only when not strict)
  int64_t duplicates = 0;      ///< label lines repeating another line of their file, left out
  bool from_cache = false;     ///< the scan was read from the label cache
  std::string cache;           ///< the cache file; "" when caching is off
};

// The const accessors are safe to call from loader threads concurrently.
class DetectDataset {
 public:
  // Unreadable images are skipped with a warning naming each; throws UserError when more than
  // max_bad_fraction of them are unreadable, none is left, or (strict) a label line is bad. A
  // cache that cannot be written costs a warning, not an error.
  DetectDataset(const std::vector<std::string>& images, const DetectDataOptions& options);

  size_t size() const { return samples_.size(); }
  const std::string& path(size_t i) const { return samples_.at(i).path; }
  // Width and height of the file as decoded, which validation maps predictions back to.
  // Like boxes(i), the stand-in's once sample i's file failed to read (stand_in_images.h).
  cv::Size original_size(size_t i) const { return samples_.at(stand_ins_.resolve(i)).size; }
  const std::vector<YoloBox>& boxes(size_t i) const { return samples_.at(stand_ins_.resolve(i)).boxes; }
  // RGB uint8 at original_size(i), or at 1/reduction of each side (rounded up) decoded at that
  // size, for reduction up to max_reduction(i) (a file that is no JPEG decodes whole); with a
  // pixel cache, sample i's copy there (its long side at most the size the cache was built for).
  // A file that fails to read after the scan is skipped and another sample stands in for it
  // (stand_in_images.h); throws UserError naming the file when no sample can be read.
  cv::Mat image(size_t i, int reduction = 1) const;
  // 8 for JPEG files (libjpeg's DCT scaling), else 1; 1 with a pixel cache.
  int max_reduction(size_t i) const { return !cache_ && samples_.at(stand_ins_.resolve(i)).jpeg ? 8 : 1; }
  // cache=disk: image(i) gives sample i's entry of `cache` (one per sample, in order) instead of
  // decoding its file; a sample the cache holds no copy of reads its file.
  void use_pixel_cache(std::shared_ptr<const PixelCacheFile> cache);
  const DetectScanSummary& summary() const { return summary_; }

 private:
  struct Sample {
    std::string path;
    cv::Size size;
    bool jpeg;
    std::vector<YoloBox> boxes;
  };
  std::vector<Sample> samples_;
  DetectScanSummary summary_;
  StandInImages stand_ins_;
  std::shared_ptr<const PixelCacheFile> cache_;
};

}  // namespace trainer
