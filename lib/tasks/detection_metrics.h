// Detection accuracy of a validation pass: COCO's matching and 101-point interpolated AP at IoU
// 0.50:0.05:0.95 (pycocotools' COCOeval for bounding boxes, without its per-image cap of 100
// detections and its area ranges), and Ultralytics' precision and recall at the best-F1 confidence.
#pragma once
#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/curve_chart.h"

#include "engine/meters.h"

namespace trainer {

// 0.50, 0.55, ..., 0.95.
const std::array<double, 10>& coco_iou_thresholds();

// AP of one class from the recall and precision after each of its detections in decreasing
// confidence order: the precision envelope (made non-increasing from the right) sampled at recall
// 0, 0.01, ..., 1 — at the first detection whose recall reaches the sample, 0 beyond the final
// recall — and averaged over the 101 samples. Empty input gives 0.
double average_precision(const std::vector<double>& recall, const std::vector<double>& precision);

struct DetectionSummary {
  // Means over the classes with ground truth, at the single confidence threshold where the mean
  // over those classes of F1 at IoU 0.5 (its curve over 1000 thresholds in [0, 1], smoothed by a
  // 101-point box filter) peaks: what Ultralytics reports as P and R.
  double precision = 0, recall = 0;
  double map50 = 0, map50_95 = 0;     ///< means over the classes with ground truth
  std::vector<int64_t> classes;       ///< the classes with ground truth, ascending
  std::vector<int64_t> instances;     ///< per entry of `classes`: its ground truth boxes
  std::vector<double> ap50, ap50_95;  ///< per entry of `classes`
  // Per entry of `classes`: its precision and recall at that same threshold (Ultralytics' per-class
  // P and R); `precision` and `recall` are their means.
  std::vector<double> class_precision, class_recall;
  // Ultralytics' curves at IoU 0.5, per entry of `classes`, at 1000 evenly spaced points of [0, 1]:
  // precision against recall (the envelope AP samples), and precision, recall and F1 against the
  // confidence threshold.
  std::vector<std::vector<double>> pr_curves, precision_curves, recall_curves, f1_curves;
};

// The summary's curves as Ultralytics' PR_curve, F1_curve, P_curve and R_curve charts, with the
// classes' names: the all-classes PR curve is the classes' mean, labelled with mAP50; the others'
// is the mean smoothed by a 51-point box filter (Ultralytics' smooth(y, 0.05)), labelled with its
// peak and where it lies.
std::vector<CurveChart> detection_curve_charts(const DetectionSummary& summary, const std::vector<std::string>& names);

// A validation meter: each rank matches its shard's detections, and the engine merges the ranks' records.
class DetectionMetrics : public Meter {
 public:
  // One image: detections [N, 6] (x1, y1, x2, y2, confidence, class) as non_max_suppression gives,
  // ground truth boxes [M, 4] xyxy in the same frame and their classes [M]. Each detection, in
  // decreasing confidence, is matched per IoU threshold to the still unmatched ground truth box of
  // its class it overlaps most, if that IoU reaches the threshold (COCO's greedy matching).
  void add_image(const torch::Tensor& detections, const torch::Tensor& gt_boxes, const torch::Tensor& gt_classes);

  DetectionSummary summarize() const;

  void reset() override;
  // The state as numbers, so a distributed validation can gather its ranks' records, and the
  // merge of such numbers from another DetectionMetrics.
  std::vector<double> pack() const override;
  void merge(const std::vector<double>& packed) override;

 private:
  struct Detection {
    double confidence;
    int64_t label;
    std::array<bool, 10> correct;  ///< per coco_iou_thresholds() entry
  };
  std::vector<Detection> detections_;
  std::map<int64_t, int64_t> gt_counts_;  ///< ground truth boxes per class
};

}  // namespace trainer
