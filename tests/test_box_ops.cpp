// Box geometry of the detection pipeline, checked against hand-computed values.
#include <catch2/catch.hpp>

#include <cmath>

#include "tasks/box_ops.h"

using namespace trainer;

namespace {

torch::Tensor box(double x1, double y1, double x2, double y2) { return torch::tensor({x1, y1, x2, y2}, torch::kFloat); }

double ciou(const torch::Tensor& a, const torch::Tensor& b) { return box_ciou(a, b).item<double>(); }

}  // namespace

TEST_CASE("xywh and xyxy convert both ways", "[detect]") {
  const torch::Tensor xywh = torch::tensor({{10.0, 20.0, 4.0, 6.0}, {0.0, 0.0, 2.0, 2.0}}, torch::kFloat);
  const torch::Tensor xyxy = torch::tensor({{8.0, 17.0, 12.0, 23.0}, {-1.0, -1.0, 1.0, 1.0}}, torch::kFloat);
  CHECK(torch::equal(xywh_to_xyxy(xywh), xyxy));
  CHECK(torch::equal(xyxy_to_xywh(xyxy), xywh));
}

TEST_CASE("box_iou of aligned pairs and, by broadcasting, of all pairs", "[detect]") {
  CHECK(box_iou(box(0, 0, 10, 10), box(5, 0, 15, 10)).item<double>() == Approx(50.0 / 150.0));
  CHECK(box_iou(box(0, 0, 10, 10), box(20, 20, 30, 30)).item<double>() == 0.0);
  const torch::Tensor a = torch::stack({box(0, 0, 10, 10), box(0, 0, 4, 4)});
  const torch::Tensor b = torch::stack({box(0, 0, 10, 10), box(0, 0, 10, 5), box(50, 50, 60, 60)});
  const torch::Tensor matrix = box_iou(a.unsqueeze(1), b.unsqueeze(0));
  REQUIRE(matrix.sizes() == torch::IntArrayRef({2, 3}));
  const torch::Tensor expected = torch::tensor({{1.0, 0.5, 0.0}, {0.16, 16.0 / 50.0, 0.0}}, torch::kFloat);
  CHECK(torch::allclose(matrix, expected, 1e-5, 1e-6));
}

TEST_CASE("CIoU on known box pairs", "[detect]") {
  // Identical boxes: IoU 1 (up to eps), no centre distance, same aspect.
  CHECK(ciou(box(2, 3, 12, 8), box(2, 3, 12, 8)) == Approx(1.0).margin(1e-6));
  // Disjoint, same shape: IoU 0; centres 2 apart, enclosing box 3 x 1 -> 4 / 10.
  CHECK(ciou(box(0, 0, 1, 1), box(2, 0, 3, 1)) == Approx(-0.4).margin(1e-6));
  // Nested with a common centre and aspect: just the IoU 4 / 16.
  CHECK(ciou(box(0, 0, 4, 4), box(1, 1, 3, 3)) == Approx(0.25).margin(1e-6));
  // 2x1 against 1x2 at the corner: IoU 1/3; centres (1, .5) and (.5, 1) over a 2x2 enclosing box
  // give 0.5 / 8; the aspect term v = 4/pi^2 (atan 2 - atan 1/2)^2 weighs v / (v + 2/3).
  const double pi = std::acos(-1.0);
  const double v = 4 / (pi * pi) * std::pow(std::atan(2.0) - std::atan(0.5), 2);
  const double expected = 1.0 / 3 - 0.5 / 8 - v * v / (v + 2.0 / 3);
  CHECK(ciou(box(0, 0, 2, 1), box(0, 0, 1, 2)) == Approx(expected).margin(1e-6));
  // Symmetric in its arguments and broadcasting like box_iou.
  CHECK(ciou(box(0, 0, 1, 2), box(0, 0, 2, 1)) == Approx(expected).margin(1e-6));
  CHECK(box_ciou(torch::zeros({3, 1, 4}), torch::zeros({1, 5, 4})).sizes() == torch::IntArrayRef({3, 5}));
}

TEST_CASE("CIoU has finite gradients, also for empty and disjoint boxes", "[detect]") {
  const torch::Tensor predicted =
      torch::stack({box(0, 0, 2, 1), box(3, 3, 3, 3), box(0, 0, 1, 1)}).requires_grad_(true);
  const torch::Tensor target = torch::stack({box(0.5, 0, 1.5, 2), box(0, 0, 0, 0), box(5, 5, 6, 6)});
  box_ciou(predicted, target).sum().backward();
  REQUIRE(predicted.grad().defined());
  CHECK(torch::isfinite(predicted.grad()).all().item<bool>());
  CHECK(predicted.grad()[0].abs().sum().item<double>() > 0);
}

TEST_CASE("anchors sit at cell centres, level after level, row-major", "[detect]") {
  const std::vector<torch::Tensor> levels{torch::zeros({1, 5, 2, 3}), torch::zeros({1, 5, 1, 2})};
  const Anchors anchors = make_anchors(levels, {8, 16});
  const torch::Tensor points = torch::tensor(
      {{0.5, 0.5}, {1.5, 0.5}, {2.5, 0.5}, {0.5, 1.5}, {1.5, 1.5}, {2.5, 1.5}, {0.5, 0.5}, {1.5, 0.5}}, torch::kFloat);
  const torch::Tensor strides = torch::tensor({8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 16.0, 16.0}, torch::kFloat).view({8, 1});
  CHECK(torch::equal(anchors.points, points));
  CHECK(torch::equal(anchors.strides, strides));
}

TEST_CASE("distances and boxes convert both ways around a point, clamped", "[detect]") {
  const torch::Tensor point = torch::tensor({5.0, 5.0}, torch::kFloat);
  const torch::Tensor distances = torch::tensor({1.0, 2.0, 3.0, 4.0}, torch::kFloat);
  CHECK(torch::equal(dist_to_box(distances, point, BoxFormat::xyxy), box(4, 3, 8, 9)));
  CHECK(torch::equal(dist_to_box(distances, point, BoxFormat::cxcywh), box(6, 6, 4, 6)));
  CHECK(torch::equal(box_to_dist(point, box(4, 3, 8, 9), 15), distances));
  // A point outside the box gives negative distances, which clamp to 0; far sides clamp to the max.
  CHECK(torch::equal(box_to_dist(point, box(6, 0, 30, 9), 14.99), torch::tensor({0.0f, 5.0f, 14.99f, 4.0f})));
}

TEST_CASE("expected_distances is the softmax expectation over the bins", "[detect]") {
  const torch::Tensor bins = torch::arange(16, torch::kFloat);
  // Equal logits: the mean bin 7.5 on every side.
  CHECK(torch::allclose(expected_distances(torch::zeros({2, 64}), bins), torch::full({2, 4}, 7.5)));
  // Two bins with equal mass, 3 and 4, on side 0; everything on bin 10 on the others.
  torch::Tensor logits = torch::full({4, 16}, -1e4);
  logits[0][3] = 0;
  logits[0][4] = 0;
  logits.slice(0, 1, 4).select(1, 10).fill_(0);
  CHECK(torch::allclose(expected_distances(logits.view({64}), bins), torch::tensor({3.5f, 10.0f, 10.0f, 10.0f})));
}

TEST_CASE("decode_predictions turns head outputs into pixel boxes and sigmoid scores", "[detect]") {
  // One level of 1x2 cells at stride 8, two classes; every side's distance is bin 2.
  torch::Tensor level = torch::full({1, 4 * 16 + 2, 1, 2}, -1e4);
  for (int side = 0; side < 4; ++side) level.select(1, side * 16 + 2).fill_(0);
  level.select(1, 64).fill_(0);    // class 0: sigmoid 0.5
  level.select(1, 65).fill_(2.0);  // class 1
  const torch::Tensor xyxy = decode_predictions({level}, {8}, 16, BoxFormat::xyxy);
  REQUIRE(xyxy.sizes() == torch::IntArrayRef({1, 6, 2}));
  // Anchor centres (0.5, 0.5) and (1.5, 0.5) cells = (4, 4) and (12, 4) px; 2 cells = 16 px per side.
  const torch::Tensor expected = torch::tensor({{-12.0, -4.0},
                                                {-12.0, -12.0},
                                                {20.0, 28.0},
                                                {20.0, 20.0},
                                                {0.5, 0.5},
                                                {1 / (1 + std::exp(-2.0)), 1 / (1 + std::exp(-2.0))}},
                                               torch::kFloat);
  CHECK(torch::allclose(xyxy[0], expected, 1e-5, 1e-4));
  const torch::Tensor cxcywh = decode_predictions({level}, {8}, 16, BoxFormat::cxcywh);
  CHECK(torch::allclose(cxcywh[0].slice(0, 0, 4), torch::tensor({{4.0, 12.0}, {4.0, 4.0}, {32.0, 32.0}, {32.0, 32.0}}),
                        1e-5, 1e-4));
}
