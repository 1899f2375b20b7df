// The counts of Ultralytics' ConfusionMatrix (rows predicted, columns true; engine/metrics.h) over a
// validation pass, for classification (top-1) and detection (boxes matched by IoU whatever their
// class, with a background row and column for the unmatched).
#pragma once
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

// The counts of a detection validation, image by image, as Ultralytics' ConfusionMatrix.process_batch:
// detections below `confidence` are ignored; every (ground truth, detection) pair whose IoU exceeds
// `iou` is a candidate, whatever the classes; each detection keeps its best-overlapping candidate,
// then each ground truth box its best-overlapping remaining one. A matched ground truth box counts
// at [detection's class][its class] (the diagonal when they agree), an unmatched one at
// [background][its class], an unmatched detection at [its class][background] (YOLOv5 and
// Ultralytics' v8.0 skip the last in an image without any match; here every one counts).
class DetectionConfusion {
 public:
  DetectionConfusion(int64_t classes, double confidence, double iou);
  // detections [N, 6] (x1, y1, x2, y2, confidence, class) as non_max_suppression gives; ground truth
  // boxes [M, 4] xyxy in the same frame and their classes [M].
  void add_image(const torch::Tensor& detections, const torch::Tensor& gt_boxes, const torch::Tensor& gt_classes);
  // (classes + 1)² counts, row-major [predicted][true], background last.
  const std::vector<int64_t>& counts() const { return counts_; }

 private:
  void count(int64_t predicted, int64_t truth);
  int64_t classes_;
  double confidence_;
  double iou_;
  std::vector<int64_t> counts_;
};

// Adds one classification batch to `counts` (long [C * C] on the logits' device, row-major
// [predicted (top-1)][true]): logits [B, C], class targets [B]. No host sync; deterministic on CUDA.
void add_classification_confusion(torch::Tensor& counts, const torch::Tensor& logits, const torch::Tensor& targets);

}  // namespace trainer
