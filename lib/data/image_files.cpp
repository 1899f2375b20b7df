#include "data/image_files.h"

#include <algorithm>
#include <filesystem>

#include "data/read_image.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {

std::vector<std::string> image_paths(const std::vector<std::string>& sources) {
  std::vector<std::string> paths;
  for (const auto& source : sources) {
    if (std::filesystem::is_directory(source)) {
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
