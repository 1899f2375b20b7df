// Class-aware non-maximum suppression of YOLOv8 predictions, as Ultralytics' validation runs it
// (utils/ops.py non_max_suppression). Validation and prediction only: it runs on the CPU with data-
// dependent shapes and plain loops.
#pragma once
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace trainer {

struct NmsOptions {
  double confidence = 0.001;  ///< a detection needs a class score above this
  double iou = 0.7;           ///< a box whose IoU with a kept box of its class exceeds this is dropped
  int64_t max_detections = 300;
  int64_t max_candidates = 30000;  ///< highest-scoring candidates considered per image
  bool multi_label = true;         ///< every class above `confidence` is a candidate, not just the best
};

// prediction: [B, 4 + classes, anchors], xyxy boxes then class scores, as decode_predictions with
// BoxFormat::xyxy gives. Returns per image a float CPU tensor [N, 6] of (x1, y1, x2, y2,
// confidence, class), highest confidence first, N <= max_detections.
std::vector<torch::Tensor> non_max_suppression(const torch::Tensor& prediction, const NmsOptions& options = {});

}  // namespace trainer
