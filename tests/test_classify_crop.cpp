// The sample regions of classification: random resized crops and erasing boxes stay inside the
// image with the documented area and aspect ranges, and the centre crop is centred.
#include <catch2/catch.hpp>

#include <algorithm>

#include "data/classify/classify_crop.h"

using namespace trainer;

namespace {

bool inside(const cv::Rect& box, cv::Size image) {
  return box.x >= 0 && box.y >= 0 && box.width >= 1 && box.height >= 1 && box.x + box.width <= image.width &&
         box.y + box.height <= image.height;
}

}  // namespace

TEST_CASE("random resized crops cover [min_area, 1] of the image at aspects 3/4 to 4/3", "[data]") {
  for (const cv::Size image : {cv::Size(100, 100), cv::Size(300, 200), cv::Size(200, 240)}) {
    SplitMix64 rng(7);
    double smallest = 1, largest = 0;
    bool centred_fallback_only = true;
    for (int draw = 0; draw < 2000; ++draw) {
      const cv::Rect box = random_resized_crop(image, 0.5, rng);
      REQUIRE(inside(box, image));
      const double area = double(box.area()) / image.area(), aspect = double(box.width) / box.height;
      // Rounding each side to whole pixels moves area and aspect by a little.
      CHECK(aspect >= 0.75 * 0.97);
      CHECK(aspect <= 4.0 / 3.0 * 1.03);
      if (box.x != (image.width - box.width) / 2 || box.y != (image.height - box.height) / 2) {
        centred_fallback_only = false;
        CHECK(area >= 0.5 * 0.96);
      }
      smallest = std::min(smallest, area);
      largest = std::max(largest, area);
    }
    CHECK_FALSE(centred_fallback_only);
    CHECK(smallest < 0.55);  // the whole range is drawn, not only its top
    CHECK(largest > 0.85);
  }
}

TEST_CASE("a random resized crop of a too elongated image is its centred box at the nearest aspect", "[data]") {
  SplitMix64 rng(3);
  // 1000 × 10: no box of 90 % of the area has an aspect within [3/4, 4/3].
  CHECK(random_resized_crop({1000, 10}, 0.9, rng) == cv::Rect(493, 0, 13, 10));
  CHECK(random_resized_crop({10, 1000}, 0.9, rng) == cv::Rect(0, 493, 10, 13));
}

TEST_CASE("the centre crop is the centred square of a share of the shorter side", "[data]") {
  CHECK(centre_crop({40, 20}, 1.0) == cv::Rect(10, 0, 20, 20));
  CHECK(centre_crop({20, 40}, 1.0) == cv::Rect(0, 10, 20, 20));
  CHECK(centre_crop({40, 20}, 0.5) == cv::Rect(15, 5, 10, 10));
  CHECK(centre_crop({32, 32}, 1.0) == cv::Rect(0, 0, 32, 32));
  CHECK(centre_crop({3, 3}, 0.01) == cv::Rect(1, 1, 1, 1));  // never empty
}

TEST_CASE("random erasing boxes cover 2-33 % of the sample at height/width 0.3 to 3.3", "[data]") {
  SplitMix64 rng(11);
  const int64_t side = 64;
  double smallest = 1, largest = 0;
  for (int draw = 0; draw < 2000; ++draw) {
    const cv::Rect box = random_erasing_box(side, rng);
    if (box.empty()) continue;  // allowed after 10 misses; tallied below
    REQUIRE(inside(box, {int(side), int(side)}));
    CHECK(box.width < side);
    CHECK(box.height < side);
    const double area = double(box.area()) / double(side * side), aspect = double(box.height) / box.width;
    CHECK(area >= 0.02 * 0.8);
    CHECK(area <= 1.0 / 3.0 * 1.1);
    CHECK(aspect >= 0.3 * 0.85);
    CHECK(aspect <= 3.3 / 0.85);
    smallest = std::min(smallest, area);
    largest = std::max(largest, area);
  }
  CHECK(smallest < 0.04);
  CHECK(largest > 0.28);
}
