// NMS-free detections of an end-to-end head (YOLO26's one-to-one branch), as Ultralytics 8.4's
// Detect.postprocess picks them: per image the `max_detections` anchors with the highest class
// score, then among their anchor-class pairs the `max_detections` highest, each pair one
// detection; validation and predict then keep those above the confidence threshold. No IoU
// suppression: the one-to-one branch was trained to give one box per object.
#pragma once
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace trainer {

// prediction: [B, 4 + classes, anchors], xyxy boxes then class scores (decode_predictions of the
// one-to-one levels). Returns per image a float CPU tensor [N, 6] of (x1, y1, x2, y2, confidence,
// class), highest confidence first, N <= max_detections, every confidence above `confidence`.
std::vector<torch::Tensor> top_detections(const torch::Tensor& prediction, int64_t max_detections,
                                          double confidence);

}  // namespace trainer
