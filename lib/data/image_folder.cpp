#include "data/image_folder.h"

#include "data/read_image.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <spdlog/spdlog.h>

#include <filesystem>

#include "util/error.h"
#include "util/parallel.h"
#include "util/text.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

fs::path split_dir(const fs::path& root, Split split) {
  return root / (split == Split::train ? "train" : "val");
}

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

// Channel count of the decoded file, 0 when it cannot be decoded.
int decoded_channels(const std::string& path) {
  try {
    const cv::Mat image = cv::imread(path, cv::IMREAD_ANYCOLOR);
    return image.empty() ? 0 : image.channels();
  } catch (const cv::Exception&) {
    return 0;
  }
}

std::vector<int> decode_all(const std::vector<std::string>& paths) {
  std::vector<int> channels(paths.size(), 0);
  parallel_for_each_index(paths.size(), [&](size_t i) { channels[i] = decoded_channels(paths[i]); });
  return channels;
}

}  // namespace

ImageFolder::ImageFolder(const std::string& root, Split split, double max_bad_fraction,
                         int64_t native_size)
    : native_size_(native_size) {
  classes_ = class_folders(split_dir(root, Split::train));
  const auto val_classes = class_folders(split_dir(root, Split::val));
  if (val_classes != classes_) {
    throw UserError("ImageFolder " + root + ": train/ and val/ must hold the same class folders; train/ has [" +
                    join(classes_, ", ") + "], val/ has [" + join(val_classes, ", ") + "]");
  }

  const fs::path dir = split_dir(root, split);
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

  const std::vector<int> channels = decode_all(paths);
  bool all_grey = true;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (channels[i] == 0) {
      spdlog::warn("skipping unreadable image {}", paths[i]);
      ++skipped_;
      continue;
    }
    all_grey = all_grey && channels[i] == 1;
    samples_.push_back({std::move(paths[i]), labels[i]});
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
}

cv::Mat ImageFolder::image(size_t i) const { return read_image(samples_.at(i).path, channels_); }

Normalization ImageFolder::normalization() const {
  if (channels_ == 1) return {{0.5}, {0.5}};
  return {{0.485, 0.456, 0.406}, {0.229, 0.224, 0.225}};
}

}  // namespace trainer
