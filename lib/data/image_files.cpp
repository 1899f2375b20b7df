#include "data/image_files.h"

#include <glob.h>

#include <algorithm>
#include <filesystem>

#include "data/read_image.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

// The image files a shell pattern names (POSIX glob: *, ?, [...]), sorted.
std::vector<std::string> matching_images(const std::string& pattern) {
  glob_t matches{};
  std::vector<std::string> files;
  if (::glob(pattern.c_str(), 0, nullptr, &matches) == 0) {
    for (size_t i = 0; i < matches.gl_pathc; ++i) {
      const std::string path = matches.gl_pathv[i];
      if (std::filesystem::is_regular_file(path) && has_image_extension(path)) files.push_back(path);
    }
  }
  globfree(&matches);
  if (files.empty()) throw UserError("no image file matches " + pattern);
  return files;
}

}  // namespace

std::vector<std::string> image_paths(const std::vector<std::string>& sources) {
  std::vector<std::string> paths;
  for (const auto& source : sources) {
    if (source.find("://") != std::string::npos) {
      throw UserError("source " + source +
                      " is a URL: nothing is fetched here (no network access); download the "
                      "images and give their file, folder or pattern");
    }
    if (!std::filesystem::exists(source) && source.find_first_of("*?[") != std::string::npos) {
      const std::vector<std::string> matched = matching_images(source);
      paths.insert(paths.end(), matched.begin(), matched.end());
    } else if (std::filesystem::is_directory(source)) {
      std::vector<std::string> found;
      for (const auto& entry : std::filesystem::directory_iterator(source)) {
        if (entry.is_regular_file() && has_image_extension(entry.path())) found.push_back(entry.path().string());
      }
      std::sort(found.begin(), found.end());
      paths.insert(paths.end(), found.begin(), found.end());
    } else if (std::filesystem::is_regular_file(source)) {
      paths.push_back(source);
    } else {
      throw UserError("no such image file or folder: " + source);
    }
  }
  if (paths.empty()) throw UserError("no images found in " + join(sources, ", "));
  return paths;
}

ImageFiles::ImageFiles(const std::vector<std::string>& sources, int64_t channels,
                       std::vector<std::string> class_names, int64_t native_size, Normalization normalization)
    : paths_(image_paths(sources)),
      channels_(channels),
      class_names_(std::move(class_names)),
      native_size_(native_size),
      normalization_(std::move(normalization)) {}

cv::Mat ImageFiles::image(size_t i) const { return read_image(paths_.at(i), channels_); }

}  // namespace trainer
