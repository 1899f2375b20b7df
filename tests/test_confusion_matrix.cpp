// The confusion matrix of detection (Ultralytics' matching, on cases worked out by hand) and of
// classification, and its CSV and PNG files.
#include <catch2/catch.hpp>

#include <opencv2/imgcodecs.hpp>

#include "run/confusion_matrix_files.h"
#include "tasks/confusion_counts.h"
#include "test_helpers.h"

using namespace trainer;
using trainer::testing::read_text;
using trainer::testing::TempDir;

namespace {

torch::Tensor rows_of(const std::vector<std::vector<float>>& rows, int64_t columns) {
  std::vector<torch::Tensor> out;
  for (const auto& row : rows) out.push_back(torch::tensor(row, torch::kFloat));
  return out.empty() ? torch::zeros({0, columns}) : torch::stack(out);
}

torch::Tensor detections(const std::vector<std::vector<float>>& rows) { return rows_of(rows, 6); }
torch::Tensor boxes(const std::vector<std::vector<float>>& rows) { return rows_of(rows, 4); }
torch::Tensor classes(const std::vector<int64_t>& values) { return torch::tensor(values, torch::kLong); }

// Two classes and the background (index 2): the counts as {predicted, true} -> count.
std::map<std::pair<int, int>, int64_t> nonzero(const DetectionConfusion& confusion) {
  std::map<std::pair<int, int>, int64_t> cells;
  const auto& counts = confusion.counts();
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] != 0) cells[{static_cast<int>(i / 3), static_cast<int>(i % 3)}] = counts[i];
  }
  return cells;
}

using Cells = std::map<std::pair<int, int>, int64_t>;

}  // namespace

TEST_CASE("detection confusion: a right class on the diagonal, a wrong one off it", "[detect]") {
  DetectionConfusion confusion(2, 0.25, 0.45);
  confusion.add_image(detections({{0, 0, 10, 10, 0.9f, 0}, {20, 0, 30, 10, 0.8f, 0}}),
                      boxes({{0, 0, 10, 10}, {20, 0, 30, 10}}), classes({0, 1}));
  CHECK(nonzero(confusion) == Cells{{{0, 0}, 1}, {{0, 1}, 1}});
  REQUIRE(confusion.counts().size() == 9);
}

TEST_CASE("detection confusion: a missed box is background's, a stray detection its class's", "[detect]") {
  DetectionConfusion confusion(2, 0.25, 0.45);
  confusion.add_image(detections({{50, 50, 60, 60, 0.9f, 1}}), boxes({{0, 0, 10, 10}}), classes({0}));
  CHECK(nonzero(confusion) == Cells{{{2, 0}, 1}, {{1, 2}, 1}});
  // An image without ground truth: every detection is a false positive.
  confusion.add_image(detections({{0, 0, 5, 5, 0.5f, 0}}), boxes({}), classes({}));
  // An image without detections: every box is missed.
  confusion.add_image(detections({}), boxes({{0, 0, 5, 5}}), classes({1}));
  CHECK(nonzero(confusion) == Cells{{{2, 0}, 1}, {{1, 2}, 1}, {{0, 2}, 1}, {{2, 1}, 1}});
}

TEST_CASE("detection confusion: the confidence and IoU thresholds", "[detect]") {
  DetectionConfusion confusion(2, 0.25, 0.45);
  // Below the confidence: ignored, so the box is missed and no false positive is counted.
  confusion.add_image(detections({{0, 0, 10, 10, 0.2f, 0}}), boxes({{0, 0, 10, 10}}), classes({0}));
  CHECK(nonzero(confusion) == Cells{{{2, 0}, 1}});
  // IoU 40/100 = 0.4, under 0.45: no match (a miss and a false positive); at a 0.35 threshold a match.
  DetectionConfusion strict(2, 0.25, 0.45);
  strict.add_image(detections({{0, 0, 4, 10, 0.9f, 0}}), boxes({{0, 0, 10, 10}}), classes({0}));
  CHECK(nonzero(strict) == Cells{{{2, 0}, 1}, {{0, 2}, 1}});
  DetectionConfusion loose(2, 0.25, 0.35);
  loose.add_image(detections({{0, 0, 4, 10, 0.9f, 0}}), boxes({{0, 0, 10, 10}}), classes({0}));
  CHECK(nonzero(loose) == Cells{{{0, 0}, 1}});
}

TEST_CASE("detection confusion: one detection per box, the best overlap first", "[detect]") {
  DetectionConfusion confusion(2, 0.25, 0.45);
  // Two detections on one box: the better-overlapping one (IoU 1, class 1) matches whatever its
  // confidence; the other (IoU 0.9, class 0) is a false positive.
  confusion.add_image(detections({{0, 0, 9, 10, 0.9f, 0}, {0, 0, 10, 10, 0.3f, 1}}), boxes({{0, 0, 10, 10}}),
                      classes({0}));
  CHECK(nonzero(confusion) == Cells{{{1, 0}, 1}, {{0, 2}, 1}});

  // A detection whose best box is taken stays unmatched, though another box overlaps it enough
  // (Ultralytics' two unique passes): detection 2 overlaps A by 100/190 = 0.53 and B by 90/200 = 0.45.
  DetectionConfusion taken(2, 0.25, 0.4);
  taken.add_image(detections({{0, 0, 10, 10, 0.9f, 0}, {0, 0, 19, 10, 0.8f, 1}}),
                  boxes({{0, 0, 10, 10}, {10, 0, 20, 10}}), classes({0, 1}));
  CHECK(nonzero(taken) == Cells{{{0, 0}, 1}, {{1, 2}, 1}, {{2, 1}, 1}});
}

TEST_CASE("classification confusion counts top-1 against the target on the device", "[classify]") {
  torch::Tensor counts = torch::zeros({9}, torch::kLong);
  const torch::Tensor logits = torch::tensor({{3.0f, 1.0f, 0.0f},    // predicts 0
                                              {0.0f, 2.0f, 1.0f},    // predicts 1
                                              {0.0f, 2.0f, 1.0f},    // predicts 1
                                              {0.0f, 0.0f, 5.0f}});  // predicts 2
  add_classification_confusion(counts, logits, torch::tensor({0, 1, 2, 2}, torch::kLong));
  add_classification_confusion(counts, logits.narrow(0, 0, 1), torch::tensor({1}, torch::kLong));
  // Row-major [predicted][true].
  CHECK(counts.equal(torch::tensor({1, 1, 0, 0, 1, 1, 0, 0, 1}, torch::kLong)));
}

TEST_CASE("the confusion matrix's CSV and PNG", "[io]") {
  const ConfusionMatrix matrix{{"cat", "dog, big", "background"}, {5, 1, 2, 0, 3, 0, 1, 0, 0}};
  CHECK(confusion_matrix_csv(matrix) ==
        "predicted\\true,cat,\"dog, big\",background\n"
        "cat,5,1,2\n"
        "\"dog, big\",0,3,0\n"
        "background,1,0,0\n");

  TempDir dir("confusion");
  save_confusion_matrix(matrix, dir.path(), true);
  CHECK(read_text(dir / "confusion_matrix.csv") == confusion_matrix_csv(matrix));
  const cv::Mat image = cv::imread(dir.file("confusion_matrix.png"), cv::IMREAD_COLOR);
  REQUIRE(!image.empty());
  // 48-px cells from (40 + labels, 40), the names' room as tall as it is wide: the shade grows with
  // the column share; an empty cell stays white.
  const int left = 40 + (image.rows - 40 - 3 * 48 - 40);
  const auto corner = [&](int predicted, int truth) {
    return image.at<cv::Vec3b>(40 + predicted * 48 + 3, left + truth * 48 + 3);
  };
  CHECK(corner(1, 1) == cv::Vec3b(144, 99, 68));            // 3 of 4 dogs: 3/4 of the way to dark blue
  CHECK(corner(0, 0)[0] < corner(2, 0)[0]);                 // 5 of 6 cats darker than 1 of 6
  CHECK(corner(1, 0) == cv::Vec3b(255, 255, 255));          // no cat called a dog
  CHECK(corner(0, 2) == cv::Vec3b(107, 48, 8));             // the only background detection

  std::filesystem::create_directories(dir / "csv-only");
  save_confusion_matrix(matrix, dir / "csv-only", false);
  CHECK(std::filesystem::exists(dir / "csv-only" / "confusion_matrix.csv"));
  CHECK(!std::filesystem::exists(dir / "csv-only" / "confusion_matrix.png"));
}
