// EasyOCR's contrast adjustment against its own arithmetic (scripts/python/contrast_fixture.py
// runs EasyOCR's adjust_contrast_grey after PIL's grey conversion): faint, sharp, one-level and
// black lines, an odd pixel count (interpolated percentiles) and an RGB line, at three targets.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "data/ocr/contrast_stretch.h"
#include "data/read_image.h"
#include "test_helpers.h"

using namespace trainer;

TEST_CASE("contrast_adjust stretches lines as EasyOCR's adjust_contrast_grey", "[ocr][data]") {
  static const testing::PythonOutput fixture("contrast_fixture.py");
  std::ifstream manifest(fixture.file("cases.txt"));
  REQUIRE(manifest);
  int cases = 0, changed = 0;
  for (std::string line; std::getline(manifest, line);) {
    std::istringstream fields(line);
    std::string input, output;
    double target = 0;
    REQUIRE(fields >> input >> target >> output);
    const bool rgb = input.find("rgb") != std::string::npos;
    const cv::Mat image = read_image(fixture.file(input), rgb ? 3 : 1);
    const cv::Mat expected = read_image(fixture.file(output), 1);
    const cv::Mat ours = stretch_contrast(image, target);
    REQUIRE(ours.channels() == image.channels());
    cv::Mat ours_grey;
    cv::extractChannel(ours, ours_grey, 0);
    const testing::PixelDifference difference = testing::pixel_difference(ours_grey, expected);
    INFO(line << ": " << difference.values << " values differ, largest " << difference.largest);
    // PIL's and OpenCV's RGB-to-grey round alike up to one level, which the stretch multiplies.
    CHECK(difference.largest <= (rgb ? 3 : 0));
    if (cv::norm(ours_grey, read_image(fixture.file(input), 1), cv::NORM_INF) > 0) ++changed;
    ++cases;
  }
  CHECK(cases == 18);
  CHECK(changed >= 6);  // the faint, one-level and odd lines are stretched at the higher targets
  const cv::Mat faint = read_image(fixture.file("faint.png"), 1);
  CHECK(cv::norm(stretch_contrast(faint, 0.0), faint, cv::NORM_INF) == 0);
}
