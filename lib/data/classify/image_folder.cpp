#include "data/classify/image_folder.h"

#include "data/jpeg_region.h"
#include "data/read_image.h"
#include "data/scan_cache.h"

#include <spdlog/spdlog.h>

#include <filesystem>

#include "util/error.h"
#include "util/parallel.h"
#include "util/text.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

// Hidden folders (.ipynb_checkpoints, .DS_Store's siblings) are tool litter, not classes.
std::vector<std::string> class_folders(const fs::path& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) throw UserError("ImageFolder: " + dir.string() + " is not a directory");
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && name.front() != '.') names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  if (names.empty()) throw UserError("ImageFolder: " + dir.string() + " has no class subfolders");
  return names;
}

std::vector<std::string> image_files(const fs::path& dir) {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && has_image_extension(entry.path())) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct ScannedFile {
  std::string path;
  FileStamp stamp;
  CheckedImage image;
};

constexpr char kCacheMagic[] = "trainer-image-folder-cache";
constexpr uint32_t kCacheFormatVersion = 1;

std::string cache_header(size_t count) {
  CacheWriter out;
  out.put(std::string(kCacheMagic));
  out.put(kCacheFormatVersion);
  out.put(max_image_pixels());  // an image over it was recorded as unreadable
  out.put(uint64_t(count));
  return out.bytes();
}

std::optional<std::vector<ScannedFile>> read_scan_cache(const fs::path& cache, const std::vector<ScannedFile>& keys) {
  const std::optional<std::string> payload = read_cache_payload(cache, cache_header(keys.size()));
  if (!payload) return std::nullopt;
  CacheReader in(*payload);
  std::vector<ScannedFile> records(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    records[i].path = in.get_string();
    records[i].stamp = in.get_stamp();
    records[i].image = in.get_checked_image();
    if (!in.ok() || records[i].path != keys[i].path || !(records[i].stamp == keys[i].stamp)) return std::nullopt;
  }
  if (!in.at_end()) return std::nullopt;
  return records;
}

void write_scan_cache(const fs::path& cache, const std::vector<ScannedFile>& records) {
  CacheWriter out;
  for (const ScannedFile& record : records) {
    out.put(record.path);
    out.put(record.stamp);
    out.put(record.image);
  }
  write_cache_file(cache, cache_header(records.size()), out.bytes());
}

// The verified files, read from `cache` when it was written for exactly these files (same
// paths, sizes and modification times), else scanned and written there.
std::vector<ScannedFile> scan(const std::vector<std::string>& paths, const std::string& cache, bool use_cache,
                              bool& from_cache) {
  std::vector<ScannedFile> records(paths.size());
  parallel_for_each_index(paths.size(), [&](size_t i) { records[i] = {paths[i], stamp_of(paths[i]), {}}; });
  if (use_cache) {
    if (auto cached = read_scan_cache(cache, records)) {
      from_cache = true;
      return std::move(*cached);
    }
  }
  parallel_for_each_index(paths.size(), [&](size_t i) { records[i].image = check_image(paths[i]); });
  if (use_cache) {
    try {
      write_scan_cache(cache, records);
    } catch (const std::exception& error) {
      spdlog::warn("cannot write the image cache {} ({}); the next run scans again", cache, error.what());
    }
  }
  return records;
}

}  // namespace

fs::path image_folder_split(const fs::path& root, Split split) {
  if (split == Split::train) return root / "train";
  std::error_code error;
  return fs::is_directory(root / "val", error) || !fs::is_directory(root / "validation", error) ? root / "val"
                                                                                                : root / "validation";
}

ImageFolder::ImageFolder(const std::string& root, Split split, double max_bad_fraction,
                         int64_t native_size, bool cache)
    : native_size_(native_size) {
  classes_ = class_folders(image_folder_split(root, Split::train));
  const auto val_classes = class_folders(image_folder_split(root, Split::val));
  if (val_classes != classes_) {
    throw UserError("ImageFolder " + root + ": train/ and val/ must hold the same class folders; train/ has [" +
                    join(classes_, ", ") + "], val/ has [" + join(val_classes, ", ") + "]");
  }

  const fs::path dir = image_folder_split(root, split);
  std::vector<std::string> paths;
  std::vector<int64_t> labels;
  for (size_t c = 0; c < classes_.size(); ++c) {
    for (auto& path : image_files(dir / classes_[c])) {
      paths.push_back(std::move(path));
      labels.push_back(int64_t(c));
    }
  }
  if (paths.empty()) {
    throw UserError("ImageFolder: no images under " + dir.string() +
                    "/<class>/ (looked for .png, .jpg, .jpeg, .bmp)");
  }

  const std::vector<ScannedFile> scanned = scan(paths, dir.string() + ".trainer-cache", cache, from_cache_);
  bool all_grey = true;
  for (size_t i = 0; i < paths.size(); ++i) {
    const CheckedImage& file = scanned[i].image;
    if (file.channels == 0) {
      spdlog::warn("skipping unreadable image {}", paths[i]);
      ++skipped_;
      continue;
    }
    all_grey = all_grey && file.channels == 1;
    samples_.push_back({std::move(paths[i]), labels[i], file.size, file.jpeg});
  }
  channels_ = all_grey ? 1 : 3;

  if (samples_.empty()) {
    throw UserError("ImageFolder: none of the " + std::to_string(skipped_) + " images under " +
                    dir.string() + " could be read");
  }
  const double bad_fraction = double(skipped_) / double(skipped_ + samples_.size());
  if (bad_fraction > max_bad_fraction) {
    throw UserError("ImageFolder: " + std::to_string(skipped_) + " of " +
                    std::to_string(skipped_ + samples_.size()) + " images under " + dir.string() +
                    " are unreadable (" + std::to_string(bad_fraction * 100) +
                    "%), more than max_bad_fraction=" + std::to_string(max_bad_fraction) + " allows");
  }
  if (skipped_) {
    spdlog::warn("{}: skipped {} unreadable of {} images", dir.string(), skipped_,
                 skipped_ + samples_.size());
  }
  // Debug: what matters of a scan, the skipped files, is warned about above.
  spdlog::debug("{}: {} images in {} classes{}", dir.string(), samples_.size(), classes_.size(),
                from_cache_ ? " (scan cached)" : "");
}

cv::Mat ImageFolder::image(size_t i) const { return reduced_image(i, 1); }

ImageGeometry ImageFolder::geometry(size_t i) const {
  const Sample& sample = samples_.at(stand_ins_.resolve(i));
  return {sample.size, sample.jpeg ? 8 : 1};
}

cv::Mat ImageFolder::reduced_image(size_t i, int reduction) const {
  return stand_ins_.read(i, samples_.size(), [&](size_t k) {
    const Sample& sample = samples_.at(k);
    return read_image(sample.path, channels_, sample.jpeg ? reduction : 1);  // a stand-in may be no JPEG
  });
}

cv::Mat ImageFolder::region_image(size_t i, const cv::Rect& region, int reduction) const {
  const Sample& sample = samples_.at(stand_ins_.resolve(i));
  if (sample.jpeg) {
    try {
      if (auto pixels = read_jpeg_region(sample.path, channels_, region, reduction)) return *pixels;
    } catch (const UserError&) {  // the whole read below fails too, and finds the stand-in
    }
  }
  return ImageDataset::region_image(i, region, reduction);
}

Normalization ImageFolder::normalization() const {
  if (channels_ == 1) return {{0.5}, {0.5}};
  return {{0.485, 0.456, 0.406}, {0.229, 0.224, 0.225}};
}

}  // namespace trainer
