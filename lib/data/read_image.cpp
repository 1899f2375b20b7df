#include "data/read_image.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "util/error.h"
#include "util/text.h"

namespace trainer {

cv::Mat read_image(const std::string& path, int64_t channels) {
  cv::Mat image;
  try {
    image = cv::imread(path, channels == 1 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR);
  } catch (const cv::Exception& error) {
    throw UserError("cannot read image " + path + ": " + error.what());
  }
  if (image.empty()) throw UserError("cannot read image " + path);
  if (channels == 3) cv::cvtColor(image, image, cv::COLOR_BGR2RGB);
  return image;
}

bool has_image_extension(const std::filesystem::path& path) {
  const std::string extension = to_lower(path.extension().string());
  return extension == ".png" || extension == ".jpg" || extension == ".jpeg" || extension == ".bmp";
}

}  // namespace trainer
