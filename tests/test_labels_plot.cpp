// labels.jpg: the class counts, box shapes and densities land where the data put them.
#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>

#include "plot/labels_plot.h"
#include "plot/plot_style.h"
#include "test_helpers.h"

using namespace trainer;
using namespace trainer::testing;

namespace {

// The pixel of a panel's plot area at (x, y) in [0, 1]², y upwards.
cv::Vec3b pixel_at(const cv::Mat& image, int panel, double x, double y) {
  const cv::Rect area = labels_plot_area(panel);
  return image.at<cv::Vec3b>(area.y + static_cast<int>((1 - y) * area.height), area.x + static_cast<int>(x * area.width));
}

cv::Vec3b as_pixel(const cv::Scalar& colour) {
  return {cv::saturate_cast<uint8_t>(colour[0]), cv::saturate_cast<uint8_t>(colour[1]), cv::saturate_cast<uint8_t>(colour[2])};
}

}  // namespace

TEST_CASE("labels.jpg draws class counts, box shapes and the densities of centres and sizes", "[io]") {
  // Class 0: three boxes at centre (0.1, 0.1), 0.2 x 0.2; class 1: one at (0.7, 0.7), 0.6 x 0.4;
  // class 2 none.
  const std::vector<YoloBox> boxes{{0, 0.1f, 0.1f, 0.2f, 0.2f}, {0, 0.1f, 0.1f, 0.2f, 0.2f}, {0, 0.1f, 0.1f, 0.2f, 0.2f},
                                   {1, 0.7f, 0.7f, 0.6f, 0.4f}};
  TempDir dir("labels-plot");
  draw_labels(boxes, {"cat", "dog", "bird"}, dir / "labels.png");
  const cv::Mat image = cv::imread(dir.file("labels.png"), cv::IMREAD_COLOR);
  REQUIRE(image.size() == cv::Size(2 * kLabelsPanel, 2 * kLabelsPanel));
  const cv::Vec3b white(255, 255, 255);

  // Bars of thirds of the width: class 0 full height, class 1 a third of it, class 2 none.
  CHECK(pixel_at(image, 0, 1.0 / 6, 0.95) == as_pixel(class_colour(0)));
  CHECK(pixel_at(image, 0, 3.0 / 6, 0.25) == as_pixel(class_colour(1)));
  CHECK(pixel_at(image, 0, 3.0 / 6, 0.4) == white);
  CHECK(pixel_at(image, 0, 5.0 / 6, 0.02) == white);

  // Box shapes centred in their panel: class 1's 0.6-wide box has its left edge at x = 0.2.
  const cv::Rect shapes = labels_plot_area(1);
  const int middle_row = shapes.y + shapes.height / 2;
  const cv::Vec3b left_edge = image.at<cv::Vec3b>(middle_row, shapes.x + static_cast<int>(0.2 * shapes.width));
  CHECK(left_edge != white);
  CHECK(image.at<cv::Vec3b>(middle_row, shapes.x + static_cast<int>(0.1 * shapes.width)) == white);

  // Densities: the fullest bin is dark blue, a bin of a third of its count lighter, empty bins white.
  CHECK(pixel_at(image, 2, 0.11, 0.11) == as_pixel(blue_shade(1.0)));
  CHECK(pixel_at(image, 2, 0.71, 0.71) == as_pixel(blue_shade(1.0 / 3)));
  CHECK(pixel_at(image, 2, 0.5, 0.3) == white);
  CHECK(pixel_at(image, 3, 0.21, 0.21) == as_pixel(blue_shade(1.0)));
  CHECK(pixel_at(image, 3, 0.61, 0.41) == as_pixel(blue_shade(1.0 / 3)));
  CHECK(pixel_at(image, 3, 0.41, 0.61) == white);  // width and height are not swapped
}
