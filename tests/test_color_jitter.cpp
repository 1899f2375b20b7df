// ColorJitter against torchvision's (scripts/python/image_ops_fixture.py, jitter.txt): its four
// adjustments in a given order at given factors, pixel for pixel on an RGB and a grey image; and
// its draws against ColorJitter's ranges and random order.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "data/classify/color_jitter.h"
#include "data/read_image.h"
#include "test_helpers.h"

using namespace trainer;

namespace {

std::optional<double> factor_field(const std::string& field) {
  if (field == "-") return std::nullopt;
  return std::stod(field);
}

}  // namespace

TEST_CASE("ColorJitter's adjustments match torchvision's on uint8 images, in any order", "[data]") {
  const testing::PythonOutput fixture("image_ops_fixture.py");
  std::ifstream manifest(fixture.file("jitter.txt"));
  REQUIRE(manifest);
  std::string line;
  int cases = 0;
  while (std::getline(manifest, line)) {
    std::istringstream fields(line);
    std::string input, order, brightness, contrast, saturation, hue, output;
    REQUIRE(fields >> input >> order >> brightness >> contrast >> saturation >> hue >> output);
    ColorJitterDraw draw;
    for (size_t i = 0; i < 4; ++i) draw.order[i] = order.at(2 * i) - '0';
    draw.factors = {factor_field(brightness), factor_field(contrast), factor_field(saturation), factor_field(hue)};
    const int channels = input == "grey.png" ? 1 : 3;
    const cv::Mat image = read_image(fixture.file(input), channels);
    const cv::Mat expected = read_image(fixture.file(output), channels);
    const cv::Mat ours = apply_color_jitter(image, draw);
    INFO(line);
    const testing::PixelDifference difference = testing::pixel_difference(ours, expected);
    INFO("differing values: " << difference.values << ", largest " << difference.largest);
    CHECK(difference.values == 0);
    ++cases;
  }
  CHECK(cases == 18);
}

TEST_CASE("ColorJitter draws every order and factors across its ranges, leaving off what is 0", "[data]") {
  SplitMix64 rng(11);
  const ColorJitter jitter{0.4, 0.4, 0.7, 0.015};  // Ultralytics' classification defaults
  std::set<std::array<int, 4>> orders;
  double lowest_saturation = 2, highest_saturation = 0, hue_sum = 0;
  constexpr int kDraws = 4000;
  for (int i = 0; i < kDraws; ++i) {
    const ColorJitterDraw draw = draw_color_jitter(jitter, rng);
    orders.insert(draw.order);
    REQUIRE(draw.factors[kBrightness]);
    CHECK((*draw.factors[kBrightness] >= 0.6 && *draw.factors[kBrightness] < 1.4));
    CHECK((*draw.factors[kContrast] >= 0.6 && *draw.factors[kContrast] < 1.4));
    lowest_saturation = std::min(lowest_saturation, *draw.factors[kSaturation]);
    highest_saturation = std::max(highest_saturation, *draw.factors[kSaturation]);
    CHECK(std::abs(*draw.factors[kHue]) <= 0.015);
    hue_sum += *draw.factors[kHue];
  }
  CHECK(orders.size() == 24);
  CHECK(lowest_saturation == Approx(0.3).margin(0.01));
  CHECK(highest_saturation == Approx(1.7).margin(0.01));
  CHECK(hue_sum / kDraws == Approx(0.0).margin(0.001));

  // Brightness 1.5 may not go below 0; a strength of 0 leaves the adjustment out.
  const ColorJitterDraw strong = draw_color_jitter({1.5, 0, 0, 0}, rng);
  CHECK(*strong.factors[kBrightness] >= 0.0);
  CHECK_FALSE(strong.factors[kContrast]);
  CHECK_FALSE(strong.factors[kSaturation]);
  CHECK_FALSE(strong.factors[kHue]);
  CHECK_FALSE(ColorJitter{}.active());
}
