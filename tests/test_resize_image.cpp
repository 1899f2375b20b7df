// resize_averaging against OpenCV's INTER_AREA, whose weights it reproduces.
#include <catch2/catch.hpp>
#include <opencv2/imgproc.hpp>

#include "data/resize_image.h"

using namespace trainer;

TEST_CASE("resize_averaging shrinks as OpenCV's area interpolation does, to a level", "[data]") {
  cv::RNG rng(5);
  for (const int type : {CV_8UC1, CV_8UC3}) {
    for (const auto& [from, to] : std::vector<std::pair<cv::Size, cv::Size>>{
             {{330, 330}, {224, 224}}, {{375, 281}, {224, 224}}, {{448, 448}, {224, 224}},
             {{1000, 700}, {224, 224}}, {{50, 40}, {7, 39}}, {{225, 300}, {224, 224}}}) {
      INFO("type " << type << " from " << from << " to " << to);
      cv::Mat image(from, type);
      rng.fill(image, cv::RNG::UNIFORM, 0, 256);
      cv::Mat expected, difference;
      cv::resize(image, expected, to, 0, 0, cv::INTER_AREA);
      const cv::Mat shrunk = resize_averaging(image, to);
      REQUIRE(shrunk.size() == to);
      REQUIRE(shrunk.type() == type);
      cv::absdiff(shrunk, expected, difference);
      double largest = 0;
      cv::minMaxLoc(difference.reshape(1), nullptr, &largest);
      CHECK(largest <= 1);
      CHECK(cv::countNonZero(difference.reshape(1)) <= int(difference.total()) / 100);
    }
  }
  // Enlarging (on either side) is resize_to's bilinear.
  cv::Mat small(20, 30, CV_8UC3, cv::Scalar(1, 2, 3)), expected;
  rng.fill(small, cv::RNG::UNIFORM, 0, 256);
  cv::resize(small, expected, cv::Size(25, 40), 0, 0, cv::INTER_LINEAR);
  CHECK(cv::norm(resize_averaging(small, cv::Size(25, 40)), expected, cv::NORM_INF) == 0);
}
