// Box geometry of YOLOv8 detection, shared by the loss, the assigner and validation: Ultralytics'
// ops.py / tal.py / metrics.py conventions. A box is the last dimension (size 4) of a tensor and
// every function broadcasts over the leading ones, so `box_iou(a.unsqueeze(1), b.unsqueeze(0))`
// is a pairwise matrix while equal shapes give aligned pairs. No function syncs with the host.
#pragma once
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace trainer {

enum class BoxFormat { xyxy, cxcywh };

// (cx, cy, w, h) <-> (x1, y1, x2, y2).
torch::Tensor xywh_to_xyxy(const torch::Tensor& boxes);
torch::Tensor xyxy_to_xywh(const torch::Tensor& boxes);

// IoU of xyxy boxes, [..., 4] x [..., 4] -> [...]; `eps` in the union as in Ultralytics' box_iou.
torch::Tensor box_iou(const torch::Tensor& a, const torch::Tensor& b, double eps = 1e-7);

// Complete IoU of xyxy boxes exactly as Ultralytics' bbox_iou(xywh=False, CIoU=True): IoU minus the
// normalised centre distance and the aspect-ratio term, `eps` added to the heights, the union and
// the enclosing diagonal, and the aspect weight alpha detached. [..., 4] x [..., 4] -> [...].
torch::Tensor box_ciou(const torch::Tensor& a, const torch::Tensor& b, double eps = 1e-7);

struct Anchors {
  torch::Tensor points;   ///< float [A, 2]: cell-centre (x, y) in grid units of the anchor's level
  torch::Tensor strides;  ///< float [A, 1]: the stride of the anchor's level
};

// The anchors of feature maps [B, C, H_i, W_i] with strides[i], level after level, row-major within
// a level (Ultralytics' make_anchors order, which is also the order of flattened head outputs).
Anchors make_anchors(const std::vector<torch::Tensor>& levels, const std::vector<double>& strides, double offset = 0.5);

// Left/top/right/bottom distances from points [..., 2] to boxes [..., 4] in `format`.
torch::Tensor dist_to_box(const torch::Tensor& distances, const torch::Tensor& points, BoxFormat format);

// Inverse of dist_to_box for xyxy boxes, distances clamped to [0, max_distance].
torch::Tensor box_to_dist(const torch::Tensor& points, const torch::Tensor& boxes, double max_distance);

// DFL decoding: the expectation of the softmax over `bins` (float [R]) of each of the four sides.
// logits [..., 4 * R] -> [..., 4]; with one bin (R = 1, Ultralytics' nn.Identity for DFL) the
// logits are the distances. Written as multiply-and-sum, not matmul, so autocast leaves it fp32.
torch::Tensor expected_distances(const torch::Tensor& logits, const torch::Tensor& bins);

struct HeadOutputs {
  torch::Tensor box_logits;    ///< float [B, A, 4 * reg_max]: per side, logits over the distance bins
  torch::Tensor class_logits;  ///< float [B, A, classes]
};

// YOLOv8 head outputs, [B, 4 * reg_max + classes, H_i, W_i] per level, flattened and concatenated
// over levels in make_anchors' order, anchors-major, in fp32 whatever the model's dtype.
HeadOutputs flatten_head_outputs(const std::vector<torch::Tensor>& levels, int64_t reg_max);

// YOLOv8 head outputs, [B, 4 * reg_max + classes, H_i, W_i] per level, to predictions in input
// pixels: float [B, 4 + classes, anchors], boxes in `format` then sigmoid class scores. This is
// Ultralytics' Detect inference output (cxcywh) when format is cxcywh; NMS takes xyxy.
torch::Tensor decode_predictions(const std::vector<torch::Tensor>& levels, const std::vector<double>& strides,
                                 int64_t reg_max, BoxFormat format);

}  // namespace trainer
