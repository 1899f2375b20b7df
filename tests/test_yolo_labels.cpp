// The YOLO label format: where a label file lives, which lines are accepted, and how each bad
// line is reported with its file and line.
#include <catch2/catch.hpp>

#include "data/detect/yolo_labels.h"
#include "test_helpers.h"

using namespace trainer;
using namespace trainer::testing;
using Catch::Matchers::Contains;

TEST_CASE("the label file replaces the last /images/ folder and the extension", "[detect-data]") {
  CHECK(label_path_for("/data/coco/images/train2017/0001.jpg") == "/data/coco/labels/train2017/0001.txt");
  CHECK(label_path_for("/images/set/images/a.b.png") == "/images/set/labels/a.b.txt");
  CHECK(label_path_for("/data/pictures/x.jpeg") == "/data/pictures/x.txt");
}

TEST_CASE("label files parse valid lines, count duplicates and report each bad line", "[detect-data]") {
  TempDir dir;
  const std::string path = dir.file("labels.txt");
  write_text(path,
             "0 0.5 0.5 0.2 0.4\n"          // 1 ok
             "\n"                           // 2 blank, ignored
             "2 0.25 0.75 0.1 0.1\r\n"      // 3 ok, CRLF
             "0 0.5 0.5 0.2 0.4\n"          // 4 duplicate of line 1
             "1 0.5 0.5 0.2\n"              // 5 four columns
             "1 0.5 abc 0.2 0.2\n"          // 6 not a number
             "1 nan 0.5 0.2 0.2\n"          // 7 not finite
             "3 0.5 0.5 0.2 0.2\n"          // 8 class >= nc
             "-1 0.5 0.5 0.2 0.2\n"         // 9 negative class
             "1.5 0.5 0.5 0.2 0.2\n"        // 10 fractional class
             "1 1.2 0.5 0.2 0.2\n"          // 11 outside [0, 1]
             "1 0.5 0.5 0 0.2\n"            // 12 no area
             "1 1.005 0.5 0.1 0.2\n"        // 13 within tolerance: clipped
             "2.0 0.5 0.5 0.2 0.2 0.1\n");  // 14 six columns
  const ParsedLabels parsed = parse_label_file(path, 3);
  CHECK(parsed.found);
  CHECK(parsed.duplicates == 1);
  REQUIRE(parsed.boxes.size() == 3);
  CHECK(parsed.boxes[1].cls == 2);
  CHECK(parsed.boxes[1].cx == Approx(0.25));
  CHECK(parsed.boxes[1].h == Approx(0.1));
  // 1.005 +- 0.05 clipped to [0.955, 1].
  CHECK(parsed.boxes[2].cx == Approx(0.9775));
  CHECK(parsed.boxes[2].w == Approx(0.045));
  REQUIRE(parsed.problems.size() == 9);
  CHECK_THAT(parsed.problems[0], Contains(path + ":5:") && Contains("expected 5 columns") && Contains("found 4"));
  CHECK_THAT(parsed.problems[1], Contains(path + ":6:") && Contains("'abc' is not a number"));
  CHECK_THAT(parsed.problems[2], Contains(path + ":7:") && Contains("not finite"));
  CHECK_THAT(parsed.problems[3], Contains(path + ":8:") && Contains("class 3 is not one of 0..2"));
  CHECK_THAT(parsed.problems[4], Contains(path + ":9:") && Contains("class -1"));
  CHECK_THAT(parsed.problems[5], Contains(path + ":10:") && Contains("class 1.5"));
  CHECK_THAT(parsed.problems[6], Contains(path + ":11:") && Contains("outside [0, 1]"));
  CHECK_THAT(parsed.problems[7], Contains(path + ":12:") && Contains("no area"));
  CHECK_THAT(parsed.problems[8], Contains(path + ":14:") && Contains("found 6"));
}

TEST_CASE("a missing label file means an image without objects", "[detect-data]") {
  TempDir dir;
  const ParsedLabels parsed = parse_label_file(dir.file("absent.txt"), 3);
  CHECK_FALSE(parsed.found);
  CHECK(parsed.boxes.empty());
  CHECK(parsed.problems.empty());
}
