// YOLOv8's task-aligned label assignment (TOOD; Ultralytics utils/tal.py TaskAlignedAssigner) on
// fixed, padded shapes. Ultralytics gathers candidates with boolean indexing, `nonzero` and a host
// branch; this version computes the same result with dense [B, M, A] masks, topk, gather, scatter
// and where only, so its shapes depend on the input shapes alone and it never waits for the device:
// it can be captured in a CUDA graph with the rest of the training step.
#pragma once
#include <ATen/core/Tensor.h>

#include <cstdint>

namespace trainer {

struct TaskAlignedAssignerOptions {
  int64_t topk = 10;   ///< candidates kept per ground-truth box
  // 8.4's second pass (YOLO26's one-to-one branch): after conflicts are resolved, each box keeps
  // only its best `topk2` positives by alignment; 0 keeps them all.
  int64_t topk2 = 0;
  // 8.4's small-target rule: for choosing candidates only, a box side shorter than the first
  // value (the finest stride) counts as the second (the next stride) about the box's centre;
  // 0 leaves boxes as they are.
  double small_side = 0, small_side_grown = 0;
  double alpha = 0.5;  ///< exponent of the class score in the alignment metric
  double beta = 6.0;   ///< exponent of the CIoU in the alignment metric
  double eps = 1e-9;
};

// B images, A anchors, C classes; every tensor is [B, A, ...] and on the inputs' device.
struct Assignment {
  torch::Tensor labels;      ///< int64 [B, A]: class of the assigned box (0 on background)
  torch::Tensor boxes;       ///< float [B, A, 4]: xyxy of the assigned box (box 0's on background)
  torch::Tensor scores;      ///< float [B, A, C]: one-hot label x normalised alignment; 0 on background
  torch::Tensor foreground;  ///< bool [B, A]
  torch::Tensor gt_index;    ///< int64 [B, A]: row of the assigned box in the padded targets
};

class TaskAlignedAssigner {
 public:
  explicit TaskAlignedAssigner(const TaskAlignedAssignerOptions& options = {}) : options_(options) {}

  // pred_scores [B, A, C] class probabilities (after sigmoid); pred_boxes [B, A, 4] xyxy and
  // anchor_points [A, 2] in input pixels; gt_labels [B, M, 1] class indices (any value on padding
  // rows); gt_boxes [B, M, 4] xyxy pixels; gt_mask [B, M, 1], 1 for real boxes, 0 for padding.
  //
  // A positive is an anchor whose centre lies strictly inside a box (grown by the small-target
  // rule) and that is among that box's `topk` anchors by score^alpha * CIoU^beta. An anchor claimed by several boxes goes to the box
  // it overlaps most (Ultralytics: argmax of the CIoU over all boxes). Its score target is the
  // alignment metric divided by the box's largest, times the box's largest CIoU over positives;
  // with `topk2`, only a box's best topk2 positives stay positive.
  // Runs without autograd.
  Assignment operator()(const torch::Tensor& pred_scores, const torch::Tensor& pred_boxes,
                        const torch::Tensor& anchor_points, const torch::Tensor& gt_labels,
                        const torch::Tensor& gt_boxes, const torch::Tensor& gt_mask) const;

  const TaskAlignedAssignerOptions& options() const { return options_; }

 private:
  // The boxes as candidate selection sees them: with the small-target rule, short sides grown.
  torch::Tensor candidate_reach(const torch::Tensor& boxes) const;

  TaskAlignedAssignerOptions options_;
};

}  // namespace trainer
