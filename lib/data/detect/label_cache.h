// The verified, parsed labels of a detection split kept in one file beside its labels, so that a
// later run skips decoding every image and parsing every label file. Like Ultralytics'
// labels.cache, it is valid only for the same image list with the same files: a changed size or
// modification time of any image or label file, an added or removed file, or another class count
// makes it stale, and a stale or corrupt cache is ignored (and rewritten by the caller).
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "data/detect/yolo_labels.h"
#include "data/scan_cache.h"

namespace trainer {

struct LabelCacheKey {
  std::string image;
  FileStamp image_stamp, label_stamp;
  bool operator==(const LabelCacheKey& other) const {
    return image == other.image && image_stamp == other.image_stamp && label_stamp == other.label_stamp;
  }
};

// What verifying one image and parsing its label file found.
struct ScannedImage {
  LabelCacheKey key;
  CheckedImage image;
  ParsedLabels labels;
};

// The records stored in `cache` when it was written for exactly `keys` (same order) and
// `classes`; nullopt when the file is missing, stale, of another format version, or corrupt.
std::optional<std::vector<ScannedImage>> read_label_cache(const std::filesystem::path& cache,
                                                          const std::vector<LabelCacheKey>& keys, int64_t classes);
// Writes atomically; throws std::exception when the folder is not writable.
void write_label_cache(const std::filesystem::path& cache, const std::vector<ScannedImage>& records, int64_t classes);

}  // namespace trainer
