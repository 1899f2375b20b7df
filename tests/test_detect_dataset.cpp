// DetectDataset's scan of a YOLO split: counts, unreadable images, strict and lenient label
// checking, and the label cache (hit, invalidation, corruption).
#include <catch2/catch.hpp>

#include <fstream>

#include "data/detect/detect_dataset.h"
#include "data/detect/label_cache.h"
#include "detect_files.h"
#include "util/error.h"

using namespace trainer;
using namespace trainer::testing;
using Catch::Matchers::Contains;

namespace {

// Three images: two objects, an empty label file, no label file; and one file that is no image.
std::vector<std::string> write_split(const TempDir& dir) {
  std::vector<std::string> images;
  images.push_back(
      write_labelled_image(dir.path(), "train", "a", {40, 30}, {{0, {2, 3, 10, 8}}, {1, {20, 10, 12, 15}}}));
  images.push_back(write_labelled_image(dir.path(), "train", "b", {32, 32}, {}));
  images.push_back(write_labelled_image(dir.path(), "train", "c", {24, 48}, {}));
  std::filesystem::remove(dir / "labels/train/c.txt");
  images.push_back(dir.file("images/train/broken.jpg"));
  write_text(images.back(), "no JPEG inside");
  return images;
}

DetectDataOptions options(int64_t classes, double max_bad_fraction = 0.5) {
  DetectDataOptions result;
  result.classes = classes;
  result.max_bad_fraction = max_bad_fraction;
  return result;
}

}  // namespace

TEST_CASE("DetectDataset counts objects and backgrounds and skips unreadable images by name", "[detect-data]") {
  TempDir dir;
  const auto images = write_split(dir);
  CapturedLog log;
  const DetectDataset data(images, options(2));
  CHECK_THAT(log.text(), Contains("skipping unreadable image") && Contains("broken.jpg"));
  REQUIRE(data.size() == 3);
  CHECK(data.path(0) == images[0]);
  CHECK(data.original_size(0) == cv::Size(40, 30));
  CHECK(data.original_size(2) == cv::Size(24, 48));
  REQUIRE(data.boxes(0).size() == 2);
  CHECK(data.boxes(0)[1].cls == 1);
  CHECK(data.boxes(0)[1].cx * 40 == Approx(26));
  CHECK(data.boxes(0)[1].h * 30 == Approx(15));
  const cv::Mat image = data.image(0);
  REQUIRE(image.type() == CV_8UC3);
  CHECK(image.at<cv::Vec3b>(5, 5) == class_colour(0));  // RGB order
  const DetectScanSummary& summary = data.summary();
  CHECK(summary.images == 3);
  CHECK(summary.unreadable == 1);
  CHECK(summary.objects == 2);
  CHECK(summary.backgrounds == 2);
  CHECK(summary.missing_labels == 1);
  CHECK_FALSE(summary.from_cache);
  CHECK(summary.cache == dir.file("labels/train.trainer-cache"));

  CHECK_THROWS_WITH(DetectDataset(images, options(2, 0.2)), Contains("1 of 4 images are unreadable"));
}

TEST_CASE("bad label lines are skipped with a warning, or stop a strict scan, naming file:line", "[detect-data]") {
  TempDir dir;
  const auto image = write_labelled_image(dir.path(), "val", "a", {20, 20}, {{0, {1, 1, 5, 5}}});
  const std::string label = dir.file("labels/val/a.txt");
  std::ofstream(label, std::ios::app) << "1 0.5 0.5 0.3 0.3\n7 0.5 0.5 0.2 0.2\n0 0.5\n";
  CapturedLog log;
  const DetectDataset lenient({image}, options(2));
  CHECK(lenient.boxes(0).size() == 2);
  CHECK(lenient.summary().bad_lines == 2);
  CHECK_THAT(log.text(), Contains(label + ":3: class 7") && Contains(label + ":4: expected 5 columns"));

  DetectDataOptions strict = options(2);
  strict.strict = true;
  // The strict run reads the cache the lenient one wrote and still refuses.
  CHECK_THROWS_WITH(DetectDataset({image}, strict), Contains("2 bad label line") && Contains(label + ":3:"));
}

TEST_CASE("single_cls makes every box class 0 after checking labels against the file's classes", "[detect-data]") {
  TempDir dir;
  const auto image = write_labelled_image(dir.path(), "val", "a", {20, 20}, {{0, {1, 1, 5, 5}}, {2, {9, 9, 8, 8}}});
  std::ofstream(dir.file("labels/val/a.txt"), std::ios::app) << "3 0.5 0.5 0.2 0.2\n";
  DetectDataOptions single = options(3);
  single.single_class = true;
  const DetectDataset data({image}, single);
  REQUIRE(data.boxes(0).size() == 2);
  CHECK(data.boxes(0)[0].cls == 0);
  CHECK(data.boxes(0)[1].cls == 0);
  CHECK(data.summary().bad_lines == 1);  // class 3 is past nc=3 whatever single_cls says
  // The cache keeps the file's classes: a later run without single_cls reads them back.
  const DetectDataset classes({image}, options(3));
  CHECK(classes.summary().from_cache);
  CHECK(classes.boxes(0)[1].cls == 2);
}

TEST_CASE("the label cache is reused until an image or label file changes, and survives corruption", "[detect-data]") {
  TempDir dir;
  const auto images = write_split(dir);
  const std::string cache = dir.file("labels/train.trainer-cache");
  CHECK_FALSE(DetectDataset(images, options(2)).summary().from_cache);
  REQUIRE(std::filesystem::exists(cache));
  {
    const DetectDataset cached(images, options(2));
    CHECK(cached.summary().from_cache);
    CHECK(cached.summary().unreadable == 1);
    CHECK(cached.boxes(0).size() == 2);
    CHECK(cached.original_size(2) == cv::Size(24, 48));
  }
  // Another class count parses differently (class 1 becomes invalid), so it rescans.
  CHECK_FALSE(DetectDataset(images, options(1)).summary().from_cache);
  CHECK_FALSE(DetectDataset(images, options(2)).summary().from_cache);
  CHECK_FALSE(DetectDataset({images[0], images[1]}, options(2)).summary().from_cache);
  CHECK_FALSE(DetectDataset(images, options(2)).summary().from_cache);
  CHECK(DetectDataset(images, options(2)).summary().from_cache);

  write_text(dir / "labels/train/b.txt", "1 0.5 0.5 0.25 0.25\n");
  const DetectDataset relabelled(images, options(2));
  CHECK_FALSE(relabelled.summary().from_cache);
  CHECK(relabelled.boxes(1).size() == 1);
  write_text(dir / "labels/train/c.txt", "");  // a label file appears
  CHECK_FALSE(DetectDataset(images, options(2)).summary().from_cache);
  CHECK(DetectDataset(images, options(2)).summary().from_cache);

  std::string bytes = read_text(cache);
  bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 0x5a);
  write_text(cache, bytes);
  const DetectDataset rebuilt(images, options(2));
  CHECK_FALSE(rebuilt.summary().from_cache);
  CHECK(rebuilt.boxes(0).size() == 2);
  CHECK(DetectDataset(images, options(2)).summary().from_cache);

  write_text(cache, "");
  CHECK_FALSE(DetectDataset(images, options(2)).summary().from_cache);
}

TEST_CASE("label cache records round-trip, including bad lines", "[detect-data]") {
  TempDir dir;
  ScannedImage record;
  record.key = {"/x/images/a.jpg", {123, 456}, {-1, 0}};
  record.image = {cv::Size(640, 480), 3, true};
  record.labels.found = true;
  record.labels.boxes = {{3, 0.5f, 0.25f, 0.125f, 0.0625f}};
  record.labels.problems = {"/x/labels/a.txt:2: bad"};
  record.labels.duplicates = 4;
  write_label_cache(dir / "c", {record}, 5);
  const auto read = read_label_cache(dir / "c", {record.key}, 5);
  REQUIRE(read);
  REQUIRE(read->size() == 1);
  const ScannedImage& back = read->front();
  CHECK(back.key == record.key);
  CHECK(back.image.size == cv::Size(640, 480));
  CHECK(back.image.channels == 3);
  CHECK(back.image.jpeg);
  CHECK(back.labels.boxes[0].cls == 3);
  CHECK(back.labels.boxes[0].h == 0.0625f);
  CHECK(back.labels.problems == record.labels.problems);
  CHECK(back.labels.duplicates == 4);
  LabelCacheKey touched = record.key;
  touched.image_stamp.mtime_ns += 1;
  CHECK_FALSE(read_label_cache(dir / "c", {touched}, 5));
  CHECK_FALSE(read_label_cache(dir / "c", {record.key}, 6));
}
