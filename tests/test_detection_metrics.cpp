// NMS and COCO-style mAP on cases small enough to work out by hand.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "tasks/detection_metrics.h"
#include "tasks/nms.h"

using namespace trainer;

namespace {

// Rows of equal length stacked into [rows, columns].
torch::Tensor stack_rows(const std::vector<std::vector<float>>& rows, int64_t columns) {
  std::vector<torch::Tensor> out;
  for (const auto& row : rows) out.push_back(torch::tensor(row, torch::kFloat));
  return out.empty() ? torch::zeros({0, columns}) : torch::stack(out);
}

// One image's prediction [1, 4 + classes, anchors] from rows (x1, y1, x2, y2, score per class...).
torch::Tensor prediction(const std::vector<std::vector<float>>& rows) {
  return stack_rows(rows, 0).t().unsqueeze(0);
}

torch::Tensor detections(const std::vector<std::vector<float>>& rows) { return stack_rows(rows, 6); }
torch::Tensor boxes(const std::vector<std::vector<float>>& rows) { return stack_rows(rows, 4); }
torch::Tensor classes(const std::vector<int64_t>& values) { return torch::tensor(values, torch::kLong); }

}  // namespace

TEST_CASE("NMS suppresses overlapping boxes of a class but not of another class", "[detect]") {
  const std::vector<torch::Tensor> out = non_max_suppression(prediction({
      {0, 0, 10, 10, 0.90f, 0.0001f},   // kept
      {1, 0, 11, 10, 0.80f, 0.0001f},   // IoU 90/110 = 0.82 with the first, same class: suppressed
      {1, 0, 11, 10, 0.0001f, 0.85f},   // same place, other class: kept
      {50, 50, 60, 60, 0.0005f, 0.0f},  // below the confidence threshold
      {20, 0, 30, 10, 0.30f, 0.0f},     // apart: kept
  }));
  REQUIRE(out.size() == 1);
  const torch::Tensor expected = torch::tensor({{0.0f, 0.0f, 10.0f, 10.0f, 0.90f, 0.0f},
                                                {1.0f, 0.0f, 11.0f, 10.0f, 0.85f, 1.0f},
                                                {20.0f, 0.0f, 30.0f, 10.0f, 0.30f, 0.0f}});
  CHECK(torch::allclose(out[0], expected));
}

TEST_CASE("NMS keeps boxes at or below the IoU threshold and honours max_detections", "[detect]") {
  // IoU 50/150 = 1/3 apart from the first: kept at the default 0.7, dropped at 0.3.
  const torch::Tensor pair = prediction({{0, 0, 10, 10, 0.9f}, {5, 0, 15, 10, 0.8f}});
  CHECK(non_max_suppression(pair)[0].size(0) == 2);
  NmsOptions strict;
  strict.iou = 0.3;
  CHECK(non_max_suppression(pair, strict)[0].size(0) == 1);

  std::vector<std::vector<float>> apart;
  for (int i = 0; i < 5; ++i) apart.push_back({20.0f * i, 0, 20.0f * i + 10, 10, 0.1f * (i + 1)});
  NmsOptions few;
  few.max_detections = 3;
  const torch::Tensor kept = non_max_suppression(prediction(apart), few)[0];
  CHECK(torch::allclose(kept.select(1, 4), torch::tensor({0.5f, 0.4f, 0.3f})));
}

TEST_CASE("NMS multi-label gives every class above the threshold its own detection", "[detect]") {
  const torch::Tensor one_anchor = prediction({{0, 0, 10, 10, 0.6f, 0.5f, 0.0005f}});
  const torch::Tensor multi = non_max_suppression(one_anchor)[0];
  CHECK(torch::allclose(multi.slice(1, 4, 6), torch::tensor({{0.6f, 0.0f}, {0.5f, 1.0f}})));
  NmsOptions best_only;
  best_only.multi_label = false;
  const torch::Tensor single = non_max_suppression(one_anchor, best_only)[0];
  CHECK(torch::allclose(single.slice(1, 4, 6), torch::tensor({{0.6f, 0.0f}})));
  // An image without any score above the threshold gives an empty [0, 6].
  CHECK(non_max_suppression(prediction({{0, 0, 10, 10, 0.0f, 0.0f}}))[0].sizes() == torch::IntArrayRef({0, 6}));
}

TEST_CASE("101-point AP by hand", "[detect]") {
  CHECK(average_precision({}, {}) == 0);
  CHECK(average_precision({1.0}, {1.0}) == Approx(1.0));
  // Half the objects found, precisely: recall samples 0..0.50 reach it -> 51 of 101.
  CHECK(average_precision({0.5}, {1.0}) == Approx(51.0 / 101));
  // A false positive first: precision 0 then 1/2 at full recall; the envelope is 1/2 everywhere.
  CHECK(average_precision({0.0, 1.0}, {0.0, 0.5}) == Approx(0.5));
  // TP, FP, TP of two objects: 1 up to recall 0.5, then the envelope 2/3 for 0.51..1.
  CHECK(average_precision({0.5, 0.5, 1.0}, {1.0, 0.5, 2.0 / 3}) == Approx((51 + 50 * 2.0 / 3) / 101));
}

TEST_CASE("mAP: one perfect detection scores 1 everywhere", "[detect]") {
  DetectionMetrics metrics;
  metrics.add_image(detections({{10, 10, 50, 50, 0.9f, 2}}), boxes({{10, 10, 50, 50}}), classes({2}));
  const DetectionSummary summary = metrics.summarize();
  CHECK(summary.classes == std::vector<int64_t>{2});
  CHECK(summary.map50 == Approx(1.0));
  CHECK(summary.map50_95 == Approx(1.0));
  CHECK(summary.precision == Approx(1.0));
  CHECK(summary.recall == Approx(1.0));
}

TEST_CASE("mAP: half the objects found, over two images", "[detect]") {
  DetectionMetrics metrics;
  metrics.add_image(detections({{0, 0, 10, 10, 0.8f, 0}}), boxes({{0, 0, 10, 10}}), classes({0}));
  metrics.add_image(detections({}), boxes({{0, 0, 10, 10}}), classes({0}));
  const DetectionSummary summary = metrics.summarize();
  CHECK(summary.map50 == Approx(51.0 / 101));
  CHECK(summary.map50_95 == Approx(51.0 / 101));
  CHECK(summary.precision == Approx(1.0));
  CHECK(summary.recall == Approx(0.5));
}

TEST_CASE("mAP: a false positive ranked first and a duplicate detection count as misses", "[detect]") {
  DetectionMetrics first;
  first.add_image(detections({{60, 60, 70, 70, 0.9f, 0}, {0, 0, 10, 10, 0.8f, 0}}), boxes({{0, 0, 10, 10}}),
                  classes({0}));
  CHECK(first.summarize().map50 == Approx(0.5));

  // Greedy by confidence: the 0.8 duplicate of object A finds A taken, so it is a false positive
  // between two true positives: TP, FP, TP.
  DetectionMetrics duplicate;
  duplicate.add_image(detections({{0, 0, 10, 10, 0.8f, 1}, {0, 0, 10, 10, 0.9f, 1}, {20, 0, 30, 10, 0.7f, 1}}),
                      boxes({{0, 0, 10, 10}, {20, 0, 30, 10}}), classes({1, 1}));
  CHECK(duplicate.summarize().map50 == Approx((51 + 50 * 2.0 / 3) / 101));
}

TEST_CASE("mAP50-95 counts the IoU thresholds a detection reaches", "[detect]") {
  // IoU 0.72 passes 0.50, 0.55, 0.60, 0.65 and 0.70: 5 of 10 thresholds.
  DetectionMetrics metrics;
  metrics.add_image(detections({{0, 0, 10, 7.2f, 0.9f, 0}}), boxes({{0, 0, 10, 10}}), classes({0}));
  const DetectionSummary summary = metrics.summarize();
  CHECK(summary.map50 == Approx(1.0));
  CHECK(summary.map50_95 == Approx(0.5));
}

TEST_CASE("mAP matches within a class and averages over the classes with ground truth", "[detect]") {
  DetectionMetrics metrics;
  // Class 0's object is found as class 1 only; class 3 has a detection but no ground truth.
  metrics.add_image(detections({{0, 0, 10, 10, 0.9f, 1}, {20, 0, 30, 10, 0.8f, 1}, {50, 50, 60, 60, 0.7f, 3}}),
                    boxes({{0, 0, 10, 10}, {20, 0, 30, 10}}), classes({0, 1}));
  const DetectionSummary summary = metrics.summarize();
  CHECK(summary.classes == std::vector<int64_t>{0, 1});
  REQUIRE(summary.ap50.size() == 2);
  CHECK(summary.ap50[0] == 0);
  CHECK(summary.ap50[1] == Approx(0.5));  // class 1: the misplaced 0.9 is its false positive, then a hit
  CHECK(summary.map50 == Approx(0.25));
  // One object each; per-class P and R at one shared threshold, their means the summary's.
  CHECK(summary.instances == std::vector<int64_t>{1, 1});
  REQUIRE(summary.class_precision.size() == 2);
  CHECK(summary.class_precision[0] == 0);
  CHECK(summary.class_recall[0] == 0);
  CHECK(summary.class_recall[1] == Approx(1.0));  // below 0.8 class 1 finds its object
  CHECK(summary.class_precision[1] == Approx(0.5));  // with the 0.9 false positive before it
  CHECK(summary.precision == Approx((summary.class_precision[0] + summary.class_precision[1]) / 2));
  CHECK(summary.recall == Approx((summary.class_recall[0] + summary.class_recall[1]) / 2));
}

TEST_CASE("a detection overlapping two objects matches the one it overlaps most", "[detect]") {
  // The 0.9 detection overlaps A by 7/13 = 0.54 and B by 9/11 = 0.82; the 0.8 detection is A
  // exactly and overlaps B by 6/14 = 0.43. Taking B first leaves A for the second: both correct up
  // to IoU 0.80. Taking A first would leave the second nothing at 0.5 (AP50 51/101).
  DetectionMetrics metrics;
  metrics.add_image(detections({{3, 0, 13, 10, 0.9f, 0}, {0, 0, 10, 10, 0.8f, 0}}),
                    boxes({{0, 0, 10, 10}, {4, 0, 14, 10}}), classes({0, 0}));
  const DetectionSummary summary = metrics.summarize();
  CHECK(summary.map50 == Approx(1.0));
  // From 0.85 on, the 0.9 detection misses and the 0.8 one finds A: recall 0.5 at precision 0.5.
  CHECK(summary.map50_95 == Approx((7 + 3 * 0.5 * 51 / 101) / 10));
}

TEST_CASE("mAP of an empty validation is zero", "[detect]") {
  const DetectionSummary summary = DetectionMetrics().summarize();
  CHECK(summary.classes.empty());
  CHECK(summary.map50 == 0);
  CHECK(summary.map50_95 == 0);
}

TEST_CASE("mAP of shards merged through their values is the mAP of the whole", "[detect]") {
  const auto add_first = [](DetectionMetrics& metrics) {
    metrics.add_image(detections({{60, 60, 70, 70, 0.9f, 0}, {0, 0, 10, 10, 0.8f, 0}}), boxes({{0, 0, 10, 10}}),
                      classes({0}));
  };
  const auto add_second = [](DetectionMetrics& metrics) {
    metrics.add_image(detections({{0, 0, 10, 7.2f, 0.85f, 2}, {20, 0, 30, 10, 0.7f, 0}}),
                      boxes({{0, 0, 10, 10}, {20, 0, 30, 10}, {40, 0, 50, 10}}), classes({2, 0, 0}));
  };
  DetectionMetrics whole, first, second, merged;
  add_first(whole);
  add_second(whole);
  add_first(first);
  add_second(second);
  merged.merge(first.pack());
  merged.merge(second.pack());
  const DetectionSummary expected = whole.summarize(), actual = merged.summarize();
  CHECK(actual.classes == expected.classes);
  CHECK(actual.ap50 == expected.ap50);
  CHECK(actual.ap50_95 == expected.ap50_95);
  CHECK(actual.precision == expected.precision);
  CHECK(actual.recall == expected.recall);
  CHECK(expected.map50_95 < expected.map50);  // the 0.72-IoU box makes the thresholds matter
  CHECK_THROWS(merged.merge({1.0, 0.0}));
}

TEST_CASE("Ultralytics' PR, P, R and F1 curves of a hand-worked class, and their charts", "[detect]") {
  // Two objects of class 1, detections TP 0.9, FP 0.8, TP 0.7: recall 1/2, 1/2, 1 and precision
  // 1, 1/2, 2/3 after each. The precision envelope with compute_ap's sentinels is 1 up to recall
  // 1/2, then 2/3, then 0 at recall 1.
  DetectionMetrics metrics;
  metrics.add_image(detections({{0, 0, 10, 10, 0.9f, 1}, {40, 40, 50, 50, 0.8f, 1}, {20, 0, 30, 10, 0.7f, 1}}),
                    boxes({{0, 0, 10, 10}, {20, 0, 30, 10}}), classes({1, 1}));
  const DetectionSummary summary = metrics.summarize();
  REQUIRE(summary.pr_curves.size() == 1);
  const auto at = [](const std::vector<double>& curve, double x) { return curve.at(static_cast<size_t>(std::lround(x * 999))); };
  const std::vector<double>& pr = summary.pr_curves[0];
  REQUIRE(pr.size() == 1000);
  CHECK(at(pr, 0.0) == Approx(1.0));
  CHECK(at(pr, 0.25) == Approx(1.0));
  CHECK(at(pr, 0.75) == Approx(2.0 / 3));
  CHECK(at(pr, 1.0) == Approx(0.0));
  // Against the confidence threshold (interpolated between detections, as numpy.interp does):
  // above 0.9 nothing is found (precision 1, recall 0), below 0.7 everything.
  const std::vector<double>& precision = summary.precision_curves[0];
  const std::vector<double>& recall = summary.recall_curves[0];
  const std::vector<double>& f1 = summary.f1_curves[0];
  CHECK(at(precision, 0.95) == Approx(1.0));
  CHECK(at(recall, 0.95) == Approx(0.0));
  CHECK(at(f1, 0.95) == Approx(0.0));
  CHECK(at(precision, 0.5) == Approx(2.0 / 3));
  CHECK(at(recall, 0.5) == Approx(1.0));
  CHECK(at(f1, 0.5) == Approx(0.8));
  const double threshold = 750.0 / 999;  // 3/4 of the way from 0.8 to 0.7 in -confidence
  const double p = 0.5 + (2.0 / 3 - 0.5) * (0.8 - threshold) / 0.1, r = 0.5 + 0.5 * (0.8 - threshold) / 0.1;
  CHECK(precision.at(750) == Approx(p));
  CHECK(recall.at(750) == Approx(r));
  CHECK(f1.at(750) == Approx(2 * p * r / (p + r)));

  const std::vector<CurveChart> charts = detection_curve_charts(summary, {"circle", "square"});
  REQUIRE(charts.size() == 4);
  CHECK(charts[0].name == "PR_curve");
  CHECK(charts[0].x_label == "Recall");
  CHECK(charts[0].labels == std::vector<std::string>{fmt::format("square {:.3f}", summary.ap50[0])});
  CHECK(charts[0].mean == pr);  // one class: its own curve
  CHECK(charts[0].mean_label == fmt::format("all classes {:.3f} mAP@0.5", summary.map50));
  CHECK(charts[1].name == "F1_curve");
  CHECK(charts[1].labels == std::vector<std::string>{"square"});
  // The all-classes F1 is smoothed (a 51-point box filter): flat stretches keep their value, and
  // it peaks where the class's F1 of 0.8 below confidence 0.7 lasts.
  CHECK(charts[1].mean.at(200) == Approx(0.8));
  CHECK(charts[1].mean.at(990) == Approx(0.0));
  const auto peak = std::max_element(charts[1].mean.begin(), charts[1].mean.end());
  CHECK(*peak == Approx(0.8));
  CHECK(charts[1].mean_label == fmt::format("all classes 0.80 at {:.3f}", charts[1].x.at(static_cast<size_t>(peak - charts[1].mean.begin()))));
  CHECK(charts[2].name == "P_curve");
  CHECK(charts[3].name == "R_curve");
  CHECK(charts[3].y_label == "Recall");
}

TEST_CASE("the all-classes PR curve is the mean of the classes' curves", "[detect]") {
  // Class 0 found perfectly, class 2 missed: its curve is 0 (AP 0), the mean half of class 0's.
  DetectionMetrics metrics;
  metrics.add_image(detections({{0, 0, 10, 10, 0.9f, 0}}), boxes({{0, 0, 10, 10}, {20, 0, 30, 10}}), classes({0, 2}));
  const DetectionSummary summary = metrics.summarize();
  const std::vector<CurveChart> charts = detection_curve_charts(summary, {"a", "b", "c"});
  REQUIRE(charts[0].curves.size() == 2);
  CHECK(charts[0].labels == std::vector<std::string>{"a 1.000", "c 0.000"});
  CHECK(charts[0].curves[1] == std::vector<double>(1000, 0.0));
  CHECK(charts[0].mean.at(500) == Approx(0.5));
  CHECK(charts[0].mean_label == "all classes 0.500 mAP@0.5");
}
