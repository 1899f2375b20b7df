// YOLOv8's detection loss (Ultralytics utils/loss.py v8DetectionLoss) on fixed, padded shapes with
// dense masks only (no nonzero, boolean indexing, .item() or host branches), so a training step
// that contains it can be captured in a CUDA graph.
//
// Normalisation, and how it maps onto Ultralytics: with S = max(sum of all target scores of the
// micro-batch, 1) and B its images,
//   box = 7.5 * sum over positives of (1 - CIoU) * weight / S
//   cls = 0.5 * sum over all anchors and classes of BCE-with-logits(logit, target score) / S
//   dfl = 1.5 * sum over positives of DFL * weight / S     (weight = the anchor's target score)
// which are Ultralytics' loss items. Ultralytics back-propagates `loss.sum() * B`; our engine
// wants the loss summed over the micro-batch's samples (it divides by the samples of the whole
// accumulation group), which is that same B * (box + cls + dfl). So `total` = B * (box + cls + dfl)
// and `parts` = B * [box, cls, dfl]; parts / B are the numbers Ultralytics prints.
#pragma once
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "engine/task_training.h"
#include "tasks/task_aligned_assigner.h"

namespace trainer {

struct DetectionLossOptions {
  double box = 7.5;  ///< gain of the CIoU loss
  double cls = 0.5;  ///< gain of the classification BCE
  double dfl = 1.5;  ///< gain of the distribution focal loss
  TaskAlignedAssignerOptions assigner;
};

// Distribution focal loss: pred_logits [..., 4, R] over R distance bins, target [..., 4] distances
// in bins. Each side's target is clamped to [0, R - 1 - 0.01] and split between its two
// neighbouring bins by linear interpolation; the loss is the cross-entropy against that split,
// averaged over the four sides -> [...].
torch::Tensor distribution_focal_loss(const torch::Tensor& pred_logits, const torch::Tensor& target);

class DetectionLoss {
 public:
  DetectionLoss(int64_t classes, std::vector<double> strides, int64_t reg_max = 16, DetectionLossOptions options = {});

  // levels: the YOLOv8 head's outputs, [B, 4 * reg_max + classes, H_i, W_i] per stride, any
  // float dtype (computed in fp32). targets: float [B, M, 5] rows (class, cx, cy, w, h) in input
  // pixels; padding rows have class -1 and are ignored whatever else they hold; M may be 0.
  LossOutput operator()(const std::vector<torch::Tensor>& levels, const torch::Tensor& targets) const;

  // The loss_names() order of `parts`.
  static std::vector<std::string> part_names() { return {"box_loss", "cls_loss", "dfl_loss"}; }

 private:
  int64_t classes_;
  std::vector<double> strides_;
  int64_t reg_max_;
  DetectionLossOptions options_;
  TaskAlignedAssigner assigner_;
};

}  // namespace trainer
