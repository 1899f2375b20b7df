// Writes tiny YOLO-layout detection datasets for tests: plain images with filled rectangles of
// known colours at known places, and their label files.
#pragma once
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "test_helpers.h"

namespace trainer::testing {

struct TestObject {
  int cls;
  cv::Rect rect;  ///< pixels [x, x + width) x [y, y + height)
};

// A distinct, saturated RGB colour per class, far from the grey background and padding (114).
inline cv::Vec3b class_colour(int cls) {
  static const cv::Vec3b colours[] = {{230, 30, 30}, {30, 220, 40}, {40, 60, 235}, {240, 230, 20}, {220, 20, 220}};
  return colours[cls % 5];
}
constexpr uint8_t kTestBackground = 60;

// root/images/<split>/<name><extension> and root/labels/<split>/<name>.txt; returns the image path.
inline std::string write_labelled_image(const std::filesystem::path& root, const std::string& split,
                                        const std::string& name, cv::Size size,
                                        const std::vector<TestObject>& objects, const std::string& extension = ".png") {
  cv::Mat rgb(size, CV_8UC3, cv::Scalar::all(kTestBackground));
  std::string labels;
  for (const TestObject& object : objects) {
    rgb(object.rect)
        .setTo(cv::Scalar(class_colour(object.cls)[0], class_colour(object.cls)[1], class_colour(object.cls)[2]));
    char line[96];
    std::snprintf(line, sizeof(line), "%d %.7f %.7f %.7f %.7f\n", object.cls,
                  (object.rect.x + object.rect.width / 2.0) / size.width,
                  (object.rect.y + object.rect.height / 2.0) / size.height, double(object.rect.width) / size.width,
                  double(object.rect.height) / size.height);
    labels += line;
  }
  const auto image = root / "images" / split / (name + extension);
  std::filesystem::create_directories(image.parent_path());
  cv::Mat bgr;
  cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
  cv::imwrite(image.string(), bgr);
  write_text(root / "labels" / split / (name + ".txt"), labels);
  return image.string();
}

// The bounding box of the pixels within `tolerance` of `colour` (per channel), or an empty rect.
inline cv::Rect colour_extent(const cv::Mat& rgb, cv::Vec3b colour, int tolerance = 40) {
  cv::Mat mask;
  const cv::Scalar low(colour[0] - tolerance, colour[1] - tolerance, colour[2] - tolerance);
  const cv::Scalar high(colour[0] + tolerance, colour[1] + tolerance, colour[2] + tolerance);
  cv::inRange(rgb, low, high, mask);
  return cv::boundingRect(mask);
}

}  // namespace trainer::testing
