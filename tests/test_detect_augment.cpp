// Detection transforms keep boxes on their objects: each object is a rectangle of its class's
// colour, and after resizing, letterboxing, mosaic, warps and flips the pixels of that colour
// must lie where the box says.
#include <catch2/catch.hpp>

#include <opencv2/imgproc.hpp>

#include "data/detect/detect_augment.h"
#include "detect_files.h"

using namespace trainer;
using namespace trainer::testing;

namespace {

LabelledImage rectangles(cv::Size size, const std::vector<TestObject>& objects) {
  LabelledImage sample{cv::Mat(size, CV_8UC3, cv::Scalar::all(kTestBackground)), {}};
  for (const TestObject& object : objects) {
    sample.image(object.rect)
        .setTo(cv::Scalar(class_colour(object.cls)[0], class_colour(object.cls)[1], class_colour(object.cls)[2]));
    const cv::Rect& r = object.rect;
    sample.boxes.push_back({object.cls, float(r.x), float(r.y), float(r.x + r.width), float(r.y + r.height)});
  }
  return sample;
}

// One object per class, so each colour's extent belongs to exactly one box.
const std::vector<TestObject> kObjects{{0, {10, 12, 40, 30}},
                                       {1, {70, 20, 18, 50}},
                                       {2, {30, 70, 60, 22}},
                                       {3, {110, 100, 35, 35}},
                                       {4, {5, 120, 12, 12}}};

// Where the box's colour is, compared with the box: `tolerance` pixels on every side, or (with
// `contained`) only that the colour lies inside the box grown by the tolerance.
void check_box_covers_colour(const LabelledImage& sample, const PixelBox& box, double tolerance, bool contained) {
  const cv::Rect extent = colour_extent(sample.image, class_colour(int(box.cls)));
  INFO("class " << box.cls << " box (" << box.x1 << ", " << box.y1 << ", " << box.x2 << ", " << box.y2 << "), colour "
                << extent);
  REQUIRE(extent.area() > 0);
  CHECK(extent.x >= box.x1 - tolerance);
  CHECK(extent.y >= box.y1 - tolerance);
  CHECK(extent.br().x <= box.x2 + tolerance);
  CHECK(extent.br().y <= box.y2 + tolerance);
  if (contained) return;
  CHECK(extent.x <= box.x1 + tolerance);
  CHECK(extent.y <= box.y1 + tolerance);
  CHECK(extent.br().x >= box.x2 - tolerance);
  CHECK(extent.br().y >= box.y2 - tolerance);
}

torch::Tensor xyxy(const std::vector<PixelBox>& boxes) {
  std::vector<float> values;
  for (const PixelBox& box : boxes) values.insert(values.end(), {box.x1, box.y1, box.x2, box.y2});
  return torch::tensor(values).view({int64_t(boxes.size()), 4});
}

// Warps the test objects with 16 seeds, checks every kept box against its colour (within 1.5 px,
// or containing it) and returns how many boxes were kept.
size_t warp_and_check(const DetectAugment& augment, cv::Size out, bool contained) {
  const LabelledImage input = rectangles({160, 160}, kObjects);
  size_t kept = 0;
  for (uint64_t seed = 0; seed < 16; ++seed) {
    SplitMix64 rng(seed);
    const LabelledImage warped = random_perspective(input, out, augment, rng);
    REQUIRE(warped.image.size() == out);
    for (const PixelBox& box : warped.boxes) check_box_covers_colour(warped, box, 1.5, contained);
    kept += warped.boxes.size();
  }
  return kept;
}

DetectAugment no_augmentation() {
  DetectAugment augment;
  augment.translate = augment.scale = 0;
  augment.hsv_h = augment.hsv_s = augment.hsv_v = 0;
  augment.fliplr = 0;
  return augment;
}

}  // namespace

TEST_CASE("letterbox centres, pads with 114 and maps boxes back to the original within 0.5 px", "[detect-data]") {
  for (const cv::Size size : {cv::Size(640, 480), cv::Size(300, 500), cv::Size(50, 20), cv::Size(641, 17)}) {
    for (const bool scaleup : {false, true}) {
      INFO(size << " scaleup " << scaleup);
      std::vector<TestObject> objects;
      for (const TestObject& object : kObjects) {
        const double sx = size.width / 160.0, sy = size.height / 150.0;
        const cv::Point from(int(object.rect.x * sx), int(object.rect.y * sy));
        const cv::Point to(int(object.rect.br().x * sx), int(object.rect.br().y * sy));
        if (to.x > from.x && to.y > from.y) objects.push_back({object.cls, cv::Rect(from, to)});
      }
      const LabelledImage input = rectangles(size, objects);
      const Letterbox geometry = letterbox_geometry(size, 128, scaleup);
      const LabelledImage boxed = letterbox(input, geometry, 128, 114);
      REQUIRE(boxed.image.size() == cv::Size(128, 128));
      CHECK(std::max(geometry.resized.width, geometry.resized.height) == (scaleup || size.width > 128 ? 128 : 50));
      CHECK(geometry.pad_x == (128 - geometry.resized.width) / 2);
      CHECK(geometry.pad_y == (128 - geometry.resized.height) / 2);
      if (geometry.pad_y > 0) CHECK(boxed.image.at<cv::Vec3b>(0, 64) == cv::Vec3b(114, 114, 114));
      if (geometry.pad_x > 0) CHECK(boxed.image.at<cv::Vec3b>(64, 0) == cv::Vec3b(114, 114, 114));
      const torch::Tensor back = geometry.to_original(xyxy(boxed.boxes));
      CHECK((back - xyxy(input.boxes)).abs().max().item<float>() < 0.5);
      for (const PixelBox& box : boxed.boxes) {
        // Enlarging by up to 2.56 blends a pixel more at each edge.
        if (box.width() >= 4 && box.height() >= 4) check_box_covers_colour(boxed, box, 1.5, false);
      }
    }
  }
}

TEST_CASE("to_original clips mapped boxes to the image", "[detect-data]") {
  const Letterbox geometry = letterbox_geometry({200, 100}, 100, false);
  CHECK(geometry.scale_x == 0.5);
  CHECK(geometry.pad_y == 25);
  const torch::Tensor back = geometry.to_original(torch::tensor({{-4.f, 20.f, 50.f, 90.f}}));
  CHECK(torch::allclose(back, torch::tensor({{0.f, 0.f, 100.f, 100.f}})));
}

TEST_CASE("resize_long_side keeps the aspect ratio and moves boxes with the pixels", "[detect-data]") {
  const LabelledImage resized = resize_long_side(rectangles({160, 150}, kObjects), 64);
  CHECK(resized.image.size() == cv::Size(64, 60));
  for (const PixelBox& box : resized.boxes) {
    if (box.width() >= 4 && box.height() >= 4) check_box_covers_colour(resized, box, 1, false);
  }
}

TEST_CASE("flips move boxes exactly with the pixels", "[detect-data]") {
  LabelledImage sample = rectangles({160, 150}, kObjects);
  DetectAugment augment;
  augment.flipud = augment.fliplr = 1;
  SplitMix64 rng(1);
  random_flips(sample, augment, rng);
  CHECK(sample.boxes[0].x1 == 160 - 50);
  CHECK(sample.boxes[0].y2 == 150 - 12);
  for (const PixelBox& box : sample.boxes) check_box_covers_colour(sample, box, 0, false);
}

TEST_CASE("mosaic places four tiles around a random centre with boxes clipped to the canvas", "[detect-data]") {
  std::vector<LabelledImage> tiles;
  for (int k = 0; k < 4; ++k) tiles.push_back(rectangles({64 - 8 * k, 48 + 4 * k}, {{k, {2 + 3 * k, 3, 20, 20 + k}}}));
  bool clipped = false;
  for (uint64_t seed = 0; seed < 12; ++seed) {
    SplitMix64 rng(seed);
    const LabelledImage mosaic = mosaic4(tiles, 64, 114, rng);
    REQUIRE(mosaic.image.size() == cv::Size(128, 128));
    for (const PixelBox& box : mosaic.boxes) {
      CHECK(box.x1 >= 0);
      CHECK(box.y2 <= 128);
      clipped = clipped || box.width() < 20 || box.height() < float(20 + box.cls);
      check_box_covers_colour(mosaic, box, 0, false);
    }
  }
  CHECK(clipped);
}

TEST_CASE("random perspective with translation and scale keeps boxes tight on their objects", "[detect-data]") {
  DetectAugment augment = no_augmentation();
  augment.translate = 0.2;
  augment.scale = 0.5;
  CHECK(warp_and_check(augment, {128, 128}, false) > 30);
}

TEST_CASE("random perspective with rotation, shear and perspective keeps objects inside their boxes", "[detect-data]") {
  DetectAugment augment = no_augmentation();
  augment.degrees = 30;
  augment.shear = 10;
  augment.perspective = 0.0005;
  augment.scale = 0.3;
  CHECK(warp_and_check(augment, {160, 160}, true) > 40);
}

TEST_CASE("random perspective drops boxes clipped to slivers or to under 10 % of their area", "[detect-data]") {
  const DetectAugment augment = no_augmentation();  // a pure crop of the centre: shift by -50
  LabelledImage input = rectangles({200, 200}, {});
  input.image.at<cv::Vec3b>(75, 75) = cv::Vec3b(1, 2, 3);
  input.boxes = {{0, 0, 0, 60, 60}, {1, 40, 40, 100, 100}, {2, 60, 60, 61.5f, 100}, {3, 70, 70, 80, 80}};
  SplitMix64 rng(0);
  const LabelledImage out = random_perspective(input, {100, 100}, augment, rng);
  CHECK(out.image.at<cv::Vec3b>(25, 25) == cv::Vec3b(1, 2, 3));
  REQUIRE(out.boxes.size() == 2);
  CHECK(out.boxes[0].cls == 1);
  CHECK(out.boxes[0].x1 == 0);
  CHECK(out.boxes[0].x2 == 50);
  CHECK(out.boxes[1].cls == 3);
  CHECK(out.boxes[1].x1 == 20);
}

TEST_CASE("HSV gains change value uniformly on grey and leave it grey", "[detect-data]") {
  DetectAugment augment;
  augment.hsv_h = augment.hsv_s = 0;
  augment.hsv_v = 0.4;
  cv::Mat grey(4, 4, CV_8UC3, cv::Scalar::all(100));
  SplitMix64 rng(3);
  random_hsv(grey, augment, rng);
  const cv::Vec3b pixel = grey.at<cv::Vec3b>(0, 0);
  CHECK(pixel[0] != 100);
  CHECK(pixel[0] == pixel[1]);
  CHECK(pixel[1] == pixel[2]);
  CHECK(cv::countNonZero(grey.reshape(1) != pixel[0]) == 0);
}
