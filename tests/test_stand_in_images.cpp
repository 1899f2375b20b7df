// StandInImages: an image that fails to read after the scan is skipped for good, the next readable
// sample (wrapping) standing in for it with its label; when none reads, the first error stands.
#include <catch2/catch.hpp>

#include <set>

#include "data/stand_in_images.h"
#include "test_helpers.h"
#include "util/error.h"

namespace {

// Sample k's "image" is one pixel of value k; the samples in `unreadable` throw as a missing file does.
struct FakeFiles {
  std::set<size_t> unreadable;
  mutable std::vector<size_t> decoded;
  cv::Mat operator()(size_t k) const {
    decoded.push_back(k);
    if (unreadable.count(k)) throw trainer::UserError("cannot read image " + std::to_string(k) + ".png");
    return cv::Mat(1, 1, CV_8UC1, cv::Scalar(static_cast<double>(k)));
  }
};

int value_of(const cv::Mat& image) { return image.at<uint8_t>(0, 0); }

}  // namespace

TEST_CASE("an unreadable image is skipped for good, the next readable sample standing in", "[data][faults]") {
  trainer::StandInImages stand_ins;
  FakeFiles files{{2, 3, 6}, {}};
  const auto read = [&](size_t i) { return value_of(stand_ins.read(i, 7, std::cref(files))); };
  trainer::testing::CapturedLog log;
  CHECK(read(0) == 0);
  CHECK(stand_ins.resolve(0) == 0);
  CHECK(read(2) == 4);  // 3 fails too
  CHECK(stand_ins.resolve(2) == 4);
  CHECK(stand_ins.resolve(3) == 4);
  files.decoded.clear();
  CHECK(read(3) == 4);
  CHECK(files.decoded == std::vector<size_t>{4});  // a known failure is not tried again
  CHECK(read(6) == 0);                             // wraps around
  CHECK(trainer::testing::count_lines(log.text(), "unreadable so far") == 2);
  CHECK_THAT(log.text(), Catch::Contains("cannot read image 2.png") && Catch::Contains("(2 unreadable so far)") &&
                             Catch::Contains("cannot read image 6.png") && Catch::Contains("(3 unreadable so far)"));

  // A stand-in that goes too is replaced in turn, for every sample it stood in for.
  files.unreadable.insert(4);
  CHECK(read(2) == 5);
  CHECK(stand_ins.resolve(3) == 5);
  files.decoded.clear();
  CHECK(read(3) == 5);
  CHECK(files.decoded == std::vector<size_t>{5});

  // With no readable file left, the first error is the answer.
  FakeFiles none{{0, 1, 2}, {}};
  trainer::StandInImages empty;
  CHECK_THROWS_WITH(empty.read(1, 3, std::cref(none)), "cannot read image 1.png");
}
