#include "io/image_file.h"

#include <string_view>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "util/atomic_file.h"
#include "util/error.h"

namespace trainer {

void write_image_atomically(const cv::Mat& image, const std::filesystem::path& path) {
  std::vector<unsigned char> encoded;
  const std::string format = path.extension().string();
  if (!cv::imencode(format, image, encoded)) throw UserError("cannot encode " + path.string() + " as " + format);
  write_file_atomically(path, std::string_view(reinterpret_cast<const char*>(encoded.data()), encoded.size()));
}

}  // namespace trainer
