// Synthetic detection data: the files form a dataset that the data.yaml reader, the label
// parser and the collate accept, every box encloses exactly the drawn pixels of its object, and
// a seed reproduces the files.
#include <catch2/catch.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "data/detect/detect_collate.h"
#include "data/detect/detect_dataset_config.h"
#include "data/synth/synth_detect.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;
using namespace trainer::testing;
using Catch::Matchers::Contains;

namespace {

SynthDetectOptions tiny(const TempDir& dir, const std::string& name) {
  SynthDetectOptions options;
  options.root = dir.file(name);
  options.train = 6;
  options.val = 3;
  options.imgsz = 96;
  options.max_objects = 5;
  options.seed = 11;
  return options;
}

// A black photograph, so every drawn pixel stands out from the background.
std::string black_background(const TempDir& dir) {
  const std::string path = dir.file("black.png");
  cv::imwrite(path, cv::Mat(200, 300, CV_8UC3, cv::Scalar::all(0)));
  return path;
}

}  // namespace

TEST_CASE("synthetic detection data loads through data.yaml and its boxes enclose exactly the shapes",
          "[detect-data]") {
  TempDir dir;
  SynthDetectOptions options = tiny(dir, "synth");
  options.backgrounds = {black_background(dir)};
  write_synth_detect(options);

  const DetectDataConfig config = read_detect_data_config(dir.file("synth/data.yaml"));
  CHECK(config.names == synth_detect_classes());
  DetectDataOptions data_options;
  data_options.classes = int64_t(config.names.size());
  data_options.strict = true;
  const DetectDataset train(list_images(config.train), data_options);
  const DetectDataset val(list_images(config.val), data_options);
  CHECK(train.size() == 6);
  CHECK(val.size() == 3);
  CHECK(train.summary().objects > 6);

  for (size_t i = 0; i < train.size(); ++i) {
    const cv::Mat image = train.image(i);
    CHECK(std::max(image.cols, image.rows) == 96);
    // Shapes have a channel of 110 or more; JPEG leaves only faint noise on the black.
    cv::Mat brightest;
    cv::reduce(image.reshape(1, image.rows * image.cols), brightest, 1, cv::REDUCE_MAX);
    const cv::Mat drawn = brightest.reshape(1, image.rows) > 70;
    // PNG keeps the drawing exact; JPEG's chroma subsampling blurs colour edges by a pixel or two.
    const int tolerance = std::filesystem::path(train.path(i)).extension() == ".png" ? 0 : 2;
    cv::Mat outside = drawn.clone();
    for (const YoloBox& box : train.boxes(i)) {
      const cv::Rect rect(int(std::lround((box.cx - box.w / 2) * image.cols)),
                          int(std::lround((box.cy - box.h / 2) * image.rows)), int(std::lround(box.w * image.cols)),
                          int(std::lround(box.h * image.rows)));
      const cv::Rect extent = cv::boundingRect(drawn(rect)) + rect.tl();
      INFO(train.path(i) << " class " << box.cls << " box " << rect << " drawn " << extent);
      // Every side of the box touches the shape.
      CHECK(std::abs(extent.x - rect.x) <= tolerance);
      CHECK(std::abs(extent.y - rect.y) <= tolerance);
      CHECK(std::abs(extent.br().x - rect.br().x) <= tolerance);
      CHECK(std::abs(extent.br().y - rect.br().y) <= tolerance);
      const cv::Rect grown =
          cv::Rect(rect.x - 3, rect.y - 3, rect.width + 6, rect.height + 6) & cv::Rect(0, 0, image.cols, image.rows);
      outside(grown).setTo(0);
    }
    INFO(train.path(i));
    CHECK(cv::countNonZero(outside) == 0);  // nothing drawn without a box
  }

  DetectAugment augment;
  augment.imgsz = 64;
  const Batch batch = make_detect_collate(train, augment, 0)({0, 1, 2}, 0);
  CHECK(batch.input.sizes() == torch::IntArrayRef{3, 3, 64, 64});
}

TEST_CASE("synthetic detection data is reproducible from its seed and uses opencv-doc photographs", "[detect-data]") {
  TempDir dir;
  // scripts/setup installs opencv-doc; without it the embedded detection set cannot be made.
  REQUIRE(std::filesystem::exists("/usr/share/doc/opencv-doc/examples/data/baboon.jpg"));
  write_synth_detect(tiny(dir, "a"));
  write_synth_detect(tiny(dir, "b"));
  for (const std::string file : {"labels/train/00000.txt", "labels/val/00002.txt", "images/train/00003.png"}) {
    CHECK(read_text(dir / ("a/" + file)) == read_text(dir / ("b/" + file)));
  }
  SynthDetectOptions other = tiny(dir, "c");
  other.seed = 12;
  write_synth_detect(other);
  CHECK(read_text(dir / "a/labels/train/00000.txt") != read_text(dir / "c/labels/train/00000.txt"));
  // Real photographs: far from a flat colour.
  cv::Scalar mean, deviation;
  cv::meanStdDev(cv::imread(dir.file("a/images/train/00000.jpg")), mean, deviation);
  CHECK(deviation[0] > 10);
}

TEST_CASE("synthetic detection data refuses a used folder and names a missing background", "[detect-data]") {
  TempDir dir;
  SynthDetectOptions options = tiny(dir, "used");
  write_text(dir / "used/keep.txt", "mine");
  CHECK_THROWS_WITH(write_synth_detect(options), Contains("not an empty folder"));
  options.root = dir.file("fresh");
  options.backgrounds = {dir.file("missing.jpg")};
  CHECK_THROWS_WITH(write_synth_detect(options), Contains("cannot read background image") && Contains("missing.jpg"));
}
