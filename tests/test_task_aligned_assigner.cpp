// The task-aligned assigner on hand-built cases: one row of six anchors, boxes whose predictions
// either equal a ground-truth box (CIoU 1, so the alignment metric is the square root of the class
// score) or overlap two boxes by different amounts.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "tasks/box_ops.h"
#include "tasks/task_aligned_assigner.h"

using namespace trainer;

namespace {

torch::Tensor box(double x1, double y1, double x2, double y2) { return torch::tensor({x1, y1, x2, y2}, torch::kFloat); }

// Anchor centres at x = 4, 12, ..., 44 px on the row y = 4.
torch::Tensor row_of_anchors() {
  return torch::stack({torch::arange(6, torch::kFloat) * 8 + 4, torch::full({6}, 4.0f)}, 1);
}

struct Case {
  torch::Tensor scores, boxes, labels, gt_boxes, mask;  // batch of one
  Assignment assign(int64_t topk) const {
    TaskAlignedAssignerOptions options;
    options.topk = topk;
    return TaskAlignedAssigner(options)(scores, boxes, row_of_anchors(), labels, gt_boxes, mask);
  }
};

// Box 0 (class 1) holds anchors 0-2, box 1 (class 0) anchors 4-5; row 2 is padding that would
// cover every anchor. Predicted boxes equal the box their anchor lies in.
Case two_separate_boxes(const torch::Tensor& padding_box) {
  const torch::Tensor left = box(0, 0, 24, 8), right = box(32, 0, 48, 8);
  Case c;
  c.scores = torch::full({1, 6, 2}, 0.01f);
  c.scores[0][0][1] = 0.64f;
  c.scores[0][1][1] = 0.16f;
  c.scores[0][2][1] = 0.36f;
  c.scores[0][4][0] = 0.25f;
  c.scores[0][5][0] = 0.81f;
  c.boxes = torch::stack({left, left, left, right, right, right}).unsqueeze(0);
  c.labels = torch::tensor({1.0f, 0.0f, 7.0f}).view({1, 3, 1});
  c.gt_boxes = torch::stack({left, right, padding_box}).unsqueeze(0);
  c.mask = torch::tensor({1.0f, 1.0f, 0.0f}).view({1, 3, 1});
  return c;
}

}  // namespace

TEST_CASE("assigner: top-k anchors inside each box are positive, scored by normalised alignment", "[detect]") {
  const Assignment a = two_separate_boxes(box(0, 0, 48, 8)).assign(/*topk=*/2);
  // Metrics sqrt(score): box 0 has 0.8, 0.4, 0.6 -> anchors 0 and 2; box 1 has 0.5, 0.9 -> 4 and 5.
  CHECK(torch::equal(a.foreground[0], torch::tensor({true, false, true, false, true, true})));
  CHECK(a.gt_index[0][0].item<int64_t>() == 0);
  CHECK(a.gt_index[0][2].item<int64_t>() == 0);
  CHECK(a.gt_index[0][4].item<int64_t>() == 1);
  CHECK(a.gt_index[0][5].item<int64_t>() == 1);
  CHECK(a.labels[0][2].item<int64_t>() == 1);
  CHECK(a.labels[0][4].item<int64_t>() == 0);
  CHECK(torch::equal(a.boxes[0][5], box(32, 0, 48, 8)));
  // Each box's best anchor gets its best CIoU (1); the others metric / best metric.
  const torch::Tensor expected = torch::tensor(
      {{0.0, 1.0}, {0.0, 0.0}, {0.0, 0.6 / 0.8}, {0.0, 0.0}, {0.5 / 0.9, 0.0}, {1.0, 0.0}}, torch::kFloat);
  CHECK(torch::allclose(a.scores[0], expected, 0, 1e-5));
}

TEST_CASE("assigner: padding rows are ignored whatever they hold", "[detect]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Assignment reference = two_separate_boxes(box(0, 0, 48, 8)).assign(2);
  const Assignment with_nan = two_separate_boxes(box(nan, 0, nan, 8)).assign(2);
  CHECK(torch::equal(reference.foreground, with_nan.foreground));
  CHECK(torch::equal(reference.scores, with_nan.scores));
  CHECK(torch::isfinite(with_nan.boxes).all().item<bool>());

  // An image with padding only has no positives; a second image does not disturb the first.
  Case both = two_separate_boxes(box(0, 0, 48, 8));
  both.scores = torch::cat({both.scores, both.scores});
  both.boxes = torch::cat({both.boxes, both.boxes});
  both.labels = torch::cat({both.labels, both.labels});
  both.gt_boxes = torch::cat({both.gt_boxes, both.gt_boxes});
  both.mask = torch::cat({both.mask, torch::zeros_like(both.mask)});
  const Assignment batch = both.assign(2);
  CHECK(torch::equal(batch.scores[0], reference.scores[0]));
  CHECK_FALSE(batch.foreground[1].any().item<bool>());
  CHECK(batch.scores[1].sum().item<double>() == 0);
}

TEST_CASE("assigner: an anchor claimed by two boxes goes to the one its prediction overlaps most", "[detect]") {
  // Anchor 2 (x = 20) lies inside both boxes and is the only anchor with a non-zero metric for
  // either, so with top-1 both claim it. Every other prediction is far away (CIoU clamped to 0).
  const torch::Tensor left = box(0, 0, 24, 8), right = box(16, 0, 48, 8);
  const auto [prediction, winner] = GENERATE(table<torch::Tensor, int64_t>({
      {box(8, 0, 40, 8), 1},  // CIoU about 0.31 with the left box, 0.56 with the right one
      {box(0, 0, 32, 8), 0},  // about 0.74 with the left box, 0.23 with the right one
  }));
  torch::Tensor boxes = box(100, 100, 101, 101).repeat({6, 1});
  boxes[2] = prediction;
  const torch::Tensor gt_boxes = torch::stack({left, right}).unsqueeze(0);
  TaskAlignedAssignerOptions options;
  options.topk = 1;
  const Assignment a = TaskAlignedAssigner(options)(torch::full({1, 6, 1}, 0.5f), boxes.unsqueeze(0), row_of_anchors(),
                                                    torch::zeros({1, 2, 1}), gt_boxes, torch::ones({1, 2, 1}));
  CHECK(torch::equal(a.foreground[0], torch::tensor({false, false, true, false, false, false})));
  CHECK(a.gt_index[0][2].item<int64_t>() == winner);
  // Alone in its box, the anchor's score target is its own CIoU with that box.
  const double overlap = box_ciou(gt_boxes[0][winner], prediction).item<double>();
  CHECK(a.scores[0][2][0].item<double>() == Approx(overlap).epsilon(1e-5));
  CHECK(a.scores.sum().item<double>() == Approx(overlap).epsilon(1e-5));
}

TEST_CASE("assigner: no target rows at all gives background everywhere with fixed shapes", "[detect]") {
  const Assignment a = TaskAlignedAssigner()(torch::rand({2, 6, 3}), torch::rand({2, 6, 4}), row_of_anchors(),
                                             torch::zeros({2, 0, 1}), torch::zeros({2, 0, 4}), torch::zeros({2, 0, 1}));
  CHECK(a.scores.sizes() == torch::IntArrayRef({2, 6, 3}));
  CHECK(a.boxes.sizes() == torch::IntArrayRef({2, 6, 4}));
  CHECK(a.foreground.sizes() == torch::IntArrayRef({2, 6}));
  CHECK_FALSE(a.foreground.any().item<bool>());
  CHECK(a.scores.sum().item<double>() == 0);
}
