#include "tasks/detection_loss.h"

#include "tasks/box_ops.h"

namespace trainer {

torch::Tensor distribution_focal_loss(const torch::Tensor& pred_logits,
                                      const torch::Tensor& target) {
  const int64_t bins = pred_logits.size(-1);
  const torch::Tensor clamped = target.clamp(0, static_cast<double>(bins) - 1 - 0.01);
  const torch::Tensor left = clamped.floor();
  const torch::Tensor right_share = clamped - left;
  const torch::Tensor log_probabilities = pred_logits.log_softmax(-1);
  const auto nll = [&](const torch::Tensor& bin) {
    return -log_probabilities.gather(-1, bin.to(torch::kLong).unsqueeze(-1)).squeeze(-1);
  };
  return (nll(left) * (1 - right_share) + nll(left + 1) * right_share).mean(-1);
}

namespace {

// Without distance bins (reg_max 1), 8.4's third term: the L1 distance between the predicted and
// the target side distances (the latter unclamped, as bbox2dist without reg_max leaves them),
// each in pixels divided by the input's width (left, right) or height (top, bottom), averaged over
// the four sides -> [B, A]. `finest` is the first level's stride, as Ultralytics takes the input
// size from the first feature map.
torch::Tensor distance_l1(const torch::Tensor& distances, const torch::Tensor& target_boxes,
                          const Anchors& anchors, const torch::Tensor& first_level, double finest) {
  const double height = static_cast<double>(first_level.size(2)) * finest;
  const double width = static_cast<double>(first_level.size(3)) * finest;
  // [..., 4] sides in grid units -> [..., 2, 2]: (left, top), (right, bottom) over width, height.
  // Scalars only: no host tensor reaches a step captured in a CUDA graph.
  const auto normalised = [&](const torch::Tensor& sides) {
    std::vector<int64_t> pairs = sides.sizes().vec();
    pairs.back() = 2;
    pairs.push_back(2);
    const torch::Tensor pixels = (sides * anchors.strides).reshape(pairs);
    return torch::stack({pixels.select(-1, 0) / width, pixels.select(-1, 1) / height}, -1);
  };
  const torch::Tensor targets = torch::cat({anchors.points - target_boxes.narrow(-1, 0, 2),
                                            target_boxes.narrow(-1, 2, 2) - anchors.points},
                                           -1);
  return (normalised(distances) - normalised(targets)).abs().mean({-2, -1});
}

}  // namespace

DetectionLoss::DetectionLoss(int64_t classes, std::vector<double> strides, int64_t reg_max,
                             DetectionLossOptions options)
    : classes_(classes),
      strides_(std::move(strides)),
      reg_max_(reg_max),
      options_(options),
      assigner_(options.assigner) {}

LossOutput DetectionLoss::operator()(const std::vector<torch::Tensor>& levels,
                                     const torch::Tensor& targets) const {
  TORCH_CHECK(levels.size() == strides_.size(), "DetectionLoss: ", levels.size(),
              " head outputs for ", strides_.size(), " strides");
  TORCH_CHECK(targets.dim() == 3 && targets.size(-1) == 5,
              "DetectionLoss: targets must be [B, M, 5], got ", targets.sizes());
  const int64_t batch = levels[0].size(0);
  const HeadOutputs outputs = flatten_head_outputs(levels, reg_max_);
  TORCH_CHECK(outputs.class_logits.size(-1) == classes_, "DetectionLoss: head outputs hold ",
              outputs.class_logits.size(-1), " classes, the loss was made for ", classes_);
  const Anchors anchors = make_anchors(levels, strides_);
  const torch::Tensor bins = torch::arange(reg_max_, outputs.box_logits.options());
  // In grid units of each anchor's level, as Ultralytics computes the box and DFL terms.
  const torch::Tensor pred_boxes =
      dist_to_box(expected_distances(outputs.box_logits, bins), anchors.points, BoxFormat::xyxy);

  const torch::Tensor rows = targets.to(outputs.box_logits.options());
  const torch::Tensor gt_labels = rows.narrow(-1, 0, 1);
  const Assignment assigned =
      assigner_(outputs.class_logits.detach().sigmoid(), pred_boxes.detach() * anchors.strides,
                anchors.points * anchors.strides, gt_labels, xywh_to_xyxy(rows.narrow(-1, 1, 4)),
                gt_labels.ge(0));

  const torch::Tensor score_sum = assigned.scores.sum().clamp_min(1);
  const torch::Tensor cls =
      torch::nn::functional::binary_cross_entropy_with_logits(
          outputs.class_logits, assigned.scores,
          torch::nn::functional::BinaryCrossEntropyWithLogitsFuncOptions().reduction(torch::kSum)) /
      score_sum;

  // Dense over all anchors instead of Ultralytics' foreground selection: background anchors weigh
  // exactly 0, and their (finite) terms cost less than a data-dependent gather.
  const torch::Tensor weight = assigned.scores.sum(-1);  // [B, A]
  const auto weighted_sum = [&](const torch::Tensor& per_anchor) {
    return (per_anchor * weight).sum() / score_sum;
  };
  const torch::Tensor target_boxes = assigned.boxes / anchors.strides;
  const torch::Tensor box = weighted_sum(1 - box_ciou(pred_boxes, target_boxes));
  const torch::Tensor dfl = weighted_sum(
      reg_max_ > 1
          ? distribution_focal_loss(
                outputs.box_logits.reshape({batch, -1, 4, reg_max_}),
                box_to_dist(anchors.points, target_boxes, static_cast<double>(reg_max_) - 1 - 0.01))
          : distance_l1(outputs.box_logits, target_boxes, anchors, levels[0], strides_[0]));

  const torch::Tensor parts =
      torch::stack({box * options_.box, cls * options_.cls, dfl * options_.dfl}) *
      static_cast<double>(batch);
  return {parts.sum(), parts.detach()};
}

}  // namespace trainer
