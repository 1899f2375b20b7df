// IDX reading: both file forms, the validation errors (which must name the file), and the real
// Fashion-MNIST install.
#include <catch2/catch.hpp>

#include "data/classify/fashion_mnist.h"
#include "data/classify/open_dataset.h"
#include "idx_files.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;
using namespace trainer::testing;
using Catch::Matchers::Contains;

TEST_CASE("IDX files read the same from gzip and plain files", "[data]") {
  for (const bool gzip : {true, false}) {
    TempDir dir;
    write_idx_dir(dir.path().string(), 12, 5, 4, gzip);
    FashionMnist train(dir.path().string(), Split::train);
    FashionMnist val(dir.path().string(), Split::val);
    CHECK(train.size() == 12);
    CHECK(val.size() == 5);
    CHECK(train.native_size() == 4);
    CHECK(train.channels() == 1);
    CHECK(train.label(11) == 1);
    const cv::Mat image = train.image(3);
    REQUIRE(image.type() == CV_8UC1);
    CHECK(image.rows == 4);
    CHECK(image.at<uint8_t>(0, 0) == uint8_t(3 * 31));
    CHECK(image.at<uint8_t>(2, 1) == uint8_t(3 * 31 + 9));
    CHECK(train.class_names().front() == "T-shirt/top");
    CHECK(train.class_names().back() == "Ankle boot");
  }
}

TEST_CASE("an IDX file with a wrong magic number is rejected naming the file", "[data]") {
  TempDir dir;
  auto bytes = idx_images(2, 4, 4);
  bytes[3] = 0x01;  // the labels magic where images belong
  write_file(dir.file("images"), bytes, true);
  CHECK_THROWS_MATCHES(read_idx_images(dir.file("images")), UserError,
                       Catch::Matchers::Message(dir.file("images") +
                                                " has magic number 0x00000801, expected 0x00000803 for IDX images"));
}

TEST_CASE("a truncated IDX file is rejected naming the file", "[data]") {
  TempDir dir;
  auto bytes = idx_images(3, 4, 4);
  bytes.resize(bytes.size() - 5);
  write_file(dir.file("plain"), bytes, false);
  CHECK_THROWS_WITH(read_idx_images(dir.file("plain")), Contains(dir.file("plain")) && Contains("truncated"));

  // A cut gzip stream fails in zlib before the size check can.
  write_file(dir.file("full.gz"), idx_images(300, 28, 28), true);
  std::filesystem::resize_file(dir.file("full.gz"), std::filesystem::file_size(dir.file("full.gz")) / 2);
  CHECK_THROWS_WITH(read_idx_images(dir.file("full.gz")), Contains(dir.file("full.gz")));

  write_file(dir.file("labels"), {0, 0, 8, 1, 0, 0, 0, 9, 1, 2}, false);
  CHECK_THROWS_WITH(read_idx_labels(dir.file("labels")), Contains(dir.file("labels")) && Contains("truncated"));
}

TEST_CASE("image and label files of different lengths are rejected naming both", "[data]") {
  TempDir dir;
  write_idx_dir(dir.path().string(), 4, 4, 4, false);
  write_file(dir.file("train-labels-idx1-ubyte"), idx_labels({1, 2, 3}), false);
  CHECK_THROWS_WITH(FashionMnist(dir.path().string(), Split::train),
                    Contains(dir.file("train-labels-idx1-ubyte")) && Contains(dir.file("train-images-idx3-ubyte")));
}

TEST_CASE("a label outside the ten classes is rejected", "[data]") {
  TempDir dir;
  write_idx_dir(dir.path().string(), 3, 3, 4, false);
  write_file(dir.file("t10k-labels-idx1-ubyte"), idx_labels({1, 10, 3}), false);
  CHECK_THROWS_WITH(FashionMnist(dir.path().string(), Split::val),
                    Contains(dir.file("t10k-labels-idx1-ubyte")) && Contains("label 10 at item 1"));
}

TEST_CASE("the installed Fashion-MNIST has 60000 train and 10000 val images labelled 0..9", "[data]") {
  const auto train = open_classify_dataset("fashion-mnist", Split::train, 0.0);
  const auto val = open_classify_dataset("fashion-mnist", Split::val, 0.0);
  CHECK(train->size() == 60000);
  CHECK(val->size() == 10000);
  CHECK(train->native_size() == 28);
  std::vector<int64_t> per_class(10, 0);
  for (size_t i = 0; i < train->size(); ++i) {
    const int64_t label = train->label(i);
    REQUIRE(label >= 0);
    REQUIRE(label < 10);
    ++per_class[size_t(label)];
  }
  CHECK(per_class == std::vector<int64_t>(10, 6000));  // the set is balanced by construction
  CHECK(cv::sum(val->image(0))[0] > 0);
}
