// ImageFolder on tiny trees written with cv::imwrite: class listing, colour handling, and the
// corrupt-file policy (skip, count, warn; fail past max_bad_fraction).
#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>

#include <fstream>

#include "data/image_folder.h"
#include "data/open_dataset.h"
#include "idx_files.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;
using namespace trainer::testing;
using Catch::Matchers::Contains;

namespace {

// Lays out root/{train,val}/<class>/ with `per_class` images of 8x8 each; colour images are
// solid BGR (10, 20, 30), grey ones solid 77.
void write_tree(const TempDir& root, const std::vector<std::string>& classes, int per_class, bool grey) {
  for (const char* split : {"train", "val"}) {
    for (const auto& name : classes) {
      const auto dir = root.path() / split / name;
      std::filesystem::create_directories(dir);
      for (int i = 0; i < per_class; ++i) {
        const cv::Mat image = grey ? cv::Mat(8, 8, CV_8UC1, cv::Scalar(77))
                                   : cv::Mat(8, 8, CV_8UC3, cv::Scalar(10, 20, 30));
        cv::imwrite((dir / (std::to_string(i) + (i % 2 ? ".png" : ".bmp"))).string(), image);
      }
    }
  }
}

void write_garbage(const std::filesystem::path& path) {
  std::ofstream(path) << "this is not a PNG";
}

}  // namespace

TEST_CASE("ImageFolder sorts classes by name and returns RGB images", "[data]") {
  TempDir root;
  write_tree(root, {"zebra", "apple", "mango"}, 3, false);
  std::ofstream(root / "train/apple/notes.txt") << "not an image, ignored";
  ImageFolder train(root.path().string(), Split::train, 0.0);
  CHECK(train.class_names() == std::vector<std::string>{"apple", "mango", "zebra"});
  CHECK(train.size() == 9);
  CHECK(train.skipped() == 0);
  CHECK(train.label(0) == 0);
  CHECK(train.label(8) == 2);
  CHECK(train.channels() == 3);
  CHECK(train.native_size() == 224);
  CHECK(train.normalization().mean == std::vector<double>{0.485, 0.456, 0.406});
  const cv::Mat image = train.image(4);
  REQUIRE(image.type() == CV_8UC3);
  CHECK(image.at<cv::Vec3b>(3, 3) == cv::Vec3b(30, 20, 10));
}

TEST_CASE("ImageFolder of grey images has one channel, and expands grey when colour is mixed in", "[data]") {
  TempDir root;
  write_tree(root, {"a", "b"}, 2, true);
  ImageFolder grey(root.path().string(), Split::val, 0.0);
  CHECK(grey.channels() == 1);
  CHECK(grey.normalization().std == std::vector<double>{0.5});
  CHECK(grey.image(0).type() == CV_8UC1);

  cv::imwrite(root / "val/b/colour.png", cv::Mat(8, 8, CV_8UC3, cv::Scalar(1, 2, 3)));
  ImageFolder mixed(root.path().string(), Split::val, 0.0);
  CHECK(mixed.channels() == 3);
  const cv::Mat expanded = mixed.image(0);
  REQUIRE(expanded.type() == CV_8UC3);
  CHECK(expanded.at<cv::Vec3b>(0, 0) == cv::Vec3b(77, 77, 77));
}

TEST_CASE("ImageFolder skips, counts and warns about a corrupt image", "[data]") {
  TempDir root;
  write_tree(root, {"cat", "dog"}, 5, false);
  write_garbage(root.path() / "train/dog/broken.png");
  CapturedLog log;
  ImageFolder train(root.path().string(), Split::train, 0.1);
  CHECK(train.size() == 10);
  CHECK(train.skipped() == 1);
  CHECK_THAT(log.text(), Contains("broken.png"));
  for (size_t i = 0; i < train.size(); ++i) CHECK_FALSE(train.image(i).empty());
}

TEST_CASE("ImageFolder fails when the unreadable share exceeds max_bad_fraction", "[data]") {
  TempDir root;
  write_tree(root, {"cat", "dog"}, 2, false);
  write_garbage(root.path() / "train/cat/bad1.jpg");
  write_garbage(root.path() / "train/dog/bad2.jpeg");
  CapturedLog log;
  CHECK_THROWS_MATCHES(ImageFolder(root.path().string(), Split::train, 0.2), UserError,
                       Catch::Matchers::Predicate<UserError>([](const UserError& error) {
                         return std::string(error.what()).find("2 of 6 images") != std::string::npos;
                       }));
  CHECK_THAT(log.text(), Contains("bad1.jpg") && Contains("bad2.jpeg"));
  CHECK_NOTHROW(ImageFolder(root.path().string(), Split::train, 0.5));
}

TEST_CASE("ImageFolder requires the same classes in train and val, and a non-empty split", "[data]") {
  TempDir root;
  write_tree(root, {"cat", "dog"}, 1, false);
  std::filesystem::create_directories(root.path() / "val/bird");
  CHECK_THROWS_WITH(ImageFolder(root.path().string(), Split::train, 0.0),
                    Contains("train/ has [cat, dog], val/ has [bird, cat, dog]"));

  TempDir empty;
  std::filesystem::create_directories(empty.path() / "train/cat");
  std::filesystem::create_directories(empty.path() / "val/cat");
  CHECK_THROWS_WITH(ImageFolder(empty.path().string(), Split::val, 1.0), Contains("no images under"));
}

TEST_CASE("open_classify_dataset picks IDX or ImageFolder by what the directory holds", "[data]") {
  TempDir root;
  write_tree(root, {"cat", "dog"}, 1, false);
  CHECK(open_classify_dataset(root.path().string(), Split::val, 0.0)->class_names().size() == 2);

  TempDir idx;
  write_idx_dir(idx.path().string(), 6, 2, 5, true);
  CHECK(open_classify_dataset(idx.path().string(), Split::train, 0.0)->native_size() == 5);
  std::filesystem::remove(idx / "t10k-images-idx3-ubyte.gz");
  CHECK_THROWS_WITH(open_classify_dataset(idx.path().string(), Split::val, 0.0),
                    Contains("lacks t10k-images-idx3-ubyte[.gz]"));

  TempDir neither;
  CHECK_THROWS_WITH(open_classify_dataset(neither.path().string(), Split::train, 0.0),
                    Contains("neither IDX files nor train/ and val/") && Contains("train-images-idx3-ubyte"));
  CHECK_THROWS_WITH(open_classify_dataset(neither / "missing", Split::train, 0.0),
                    Contains("is not a directory") && Contains("fashion-mnist"));
}
