#include "tasks/task_aligned_assigner.h"

#include "tasks/box_ops.h"

namespace trainer {
namespace {

// Zeros shaped like `like` with ones where `index` points along `dim`.
torch::Tensor one_hot_along(const torch::Tensor& like, int64_t dim, const torch::Tensor& index) {
  return torch::zeros_like(like).scatter_(dim, index, 1.0);
}

}  // namespace

torch::Tensor TaskAlignedAssigner::candidate_reach(const torch::Tensor& boxes) const {
  if (options_.small_side <= 0) return boxes;
  const torch::Tensor centred = xyxy_to_xywh(boxes);
  const torch::Tensor sides = centred.narrow(-1, 2, 2);
  const torch::Tensor grown =
      torch::where(sides.lt(options_.small_side),
                   torch::full({}, options_.small_side_grown, sides.options()), sides);
  return xywh_to_xyxy(torch::cat({centred.narrow(-1, 0, 2), grown}, -1));
}

Assignment TaskAlignedAssigner::operator()(const torch::Tensor& pred_scores,
                                           const torch::Tensor& pred_boxes,
                                           const torch::Tensor& anchor_points,
                                           const torch::Tensor& gt_labels,
                                           const torch::Tensor& gt_boxes,
                                           const torch::Tensor& gt_mask) const {
  torch::NoGradGuard no_grad;
  const int64_t batch = pred_scores.size(0), anchors = pred_scores.size(1);
  const int64_t max_boxes = gt_boxes.size(1);
  const auto index_options = pred_scores.options().dtype(torch::kLong);
  if (max_boxes ==
      0) {  // decided by a shape, so every replay of a captured graph takes the same path
    return {torch::zeros({batch, anchors}, index_options), torch::zeros_like(pred_boxes),
            torch::zeros_like(pred_scores),
            torch::zeros({batch, anchors}, index_options.dtype(torch::kBool)),
            torch::zeros({batch, anchors}, index_options)};
  }

  // Padding rows become class 0 with an empty box: whatever they held cannot reach a NaN below.
  const torch::Tensor real = gt_mask.to(torch::kBool);  // [B, M, 1]
  const torch::Tensor labels =
      torch::where(real.squeeze(-1), gt_labels.reshape({batch, max_boxes}).to(torch::kLong),
                   torch::zeros({}, index_options));  // [B, M]
  const torch::Tensor boxes =
      torch::where(real, gt_boxes, torch::zeros({}, gt_boxes.options()));  // [B, M, 4]

  // Candidates: real boxes and the anchors whose centre lies strictly inside them, [B, M, A].
  const torch::Tensor points = anchor_points.reshape({1, 1, anchors, 2});
  const torch::Tensor reach = candidate_reach(boxes);
  const torch::Tensor margins = torch::cat(
      {points - reach.narrow(-1, 0, 2).unsqueeze(2), reach.narrow(-1, 2, 2).unsqueeze(2) - points},
      -1);
  const torch::Tensor candidate = margins.amin(-1).gt(options_.eps) & real;

  // Alignment metric score^alpha * CIoU^beta, zero outside the candidates, [B, M, A].
  const torch::Tensor class_scores = pred_scores.transpose(1, 2).gather(
      1, labels.unsqueeze(-1).expand({batch, max_boxes, anchors}));
  const torch::Tensor overlaps =
      torch::where(candidate, box_ciou(boxes.unsqueeze(2), pred_boxes.unsqueeze(1)).clamp_min(0),
                   torch::zeros({}, pred_boxes.options()));
  const torch::Tensor align =
      torch::where(candidate, class_scores, torch::zeros({}, class_scores.options()))
          .pow(options_.alpha) *
      overlaps.pow(options_.beta);

  // Each box keeps its top-k anchors; the top-k of a box with fewer candidates reaches outside
  // them.
  const torch::Tensor top = std::get<1>(align.topk(std::min(options_.topk, anchors), -1));
  torch::Tensor positive = one_hot_along(align, -1, top).gt(0) & candidate;  // [B, M, A]

  // An anchor claimed by several boxes goes to the box it overlaps most.
  const torch::Tensor most_overlapping = one_hot_along(overlaps, 1, overlaps.argmax(1, true)).gt(0);
  positive = torch::where(positive.sum(1, true).gt(1), most_overlapping, positive);
  if (options_.topk2 > 0 && options_.topk2 < options_.topk) {
    const torch::Tensor kept =
        std::get<1>((align * positive).topk(std::min(options_.topk2, anchors), -1));
    positive = positive & one_hot_along(align, -1, kept).gt(0);
  }
  const torch::Tensor foreground = positive.any(1);                     // [B, A]
  const torch::Tensor gt_index = positive.to(torch::kFloat).argmax(1);  // [B, A]; 0 on background

  // Score targets: alignment normalised per box so that its best anchor gets the box's best CIoU.
  const torch::Tensor positive_align = align * positive;
  const torch::Tensor best_align = positive_align.amax(-1, true);           // [B, M, 1]
  const torch::Tensor best_overlap = (overlaps * positive).amax(-1, true);  // [B, M, 1]
  const torch::Tensor quality =
      (positive_align * best_overlap / (best_align + options_.eps)).amax(1);  // [B, A]

  const torch::Tensor assigned_labels = labels.gather(1, gt_index);
  const torch::Tensor assigned_boxes =
      boxes.gather(1, gt_index.unsqueeze(-1).expand({batch, anchors, 4}));
  const torch::Tensor scores = one_hot_along(pred_scores, -1, assigned_labels.unsqueeze(-1)) *
                               (quality * foreground).unsqueeze(-1);
  return {assigned_labels, assigned_boxes, scores, foreground, gt_index};
}

}  // namespace trainer
