#include "tasks/box_ops.h"

#include <c10/util/MathConstants.h>

namespace trainer {
namespace {

struct Corners {
  explicit Corners(const torch::Tensor& boxes) {
    const std::vector<torch::Tensor> parts = boxes.unbind(-1);
    x1 = parts[0];
    y1 = parts[1];
    x2 = parts[2];
    y2 = parts[3];
  }
  torch::Tensor x1, y1, x2, y2;
};

torch::Tensor intersection(const Corners& a, const Corners& b) {
  return (torch::minimum(a.x2, b.x2) - torch::maximum(a.x1, b.x1)).clamp_min(0) *
         (torch::minimum(a.y2, b.y2) - torch::maximum(a.y1, b.y1)).clamp_min(0);
}

}  // namespace

torch::Tensor xywh_to_xyxy(const torch::Tensor& boxes) {
  const torch::Tensor centre = boxes.narrow(-1, 0, 2);
  const torch::Tensor half = boxes.narrow(-1, 2, 2) / 2;
  return torch::cat({centre - half, centre + half}, -1);
}

torch::Tensor xyxy_to_xywh(const torch::Tensor& boxes) {
  const torch::Tensor top_left = boxes.narrow(-1, 0, 2);
  const torch::Tensor bottom_right = boxes.narrow(-1, 2, 2);
  return torch::cat({(top_left + bottom_right) / 2, bottom_right - top_left}, -1);
}

torch::Tensor box_iou(const torch::Tensor& a, const torch::Tensor& b, double eps) {
  const Corners p(a), q(b);
  const torch::Tensor inter = intersection(p, q);
  const torch::Tensor area_a = (p.x2 - p.x1) * (p.y2 - p.y1);
  const torch::Tensor area_b = (q.x2 - q.x1) * (q.y2 - q.y1);
  return inter / (area_a + area_b - inter + eps);
}

torch::Tensor box_ciou(const torch::Tensor& a, const torch::Tensor& b, double eps) {
  const Corners p(a), q(b);
  const torch::Tensor w1 = p.x2 - p.x1, h1 = p.y2 - p.y1 + eps;
  const torch::Tensor w2 = q.x2 - q.x1, h2 = q.y2 - q.y1 + eps;
  const torch::Tensor inter = intersection(p, q);
  const torch::Tensor iou = inter / (w1 * h1 + w2 * h2 - inter + eps);
  const torch::Tensor enclosing_w = torch::maximum(p.x2, q.x2) - torch::minimum(p.x1, q.x1);
  const torch::Tensor enclosing_h = torch::maximum(p.y2, q.y2) - torch::minimum(p.y1, q.y1);
  const torch::Tensor diagonal2 = enclosing_w.square() + enclosing_h.square() + eps;
  const torch::Tensor centre_distance2 =
      ((q.x1 + q.x2 - p.x1 - p.x2).square() + (q.y1 + q.y2 - p.y1 - p.y2).square()) / 4;
  const double pi = c10::pi<double>;
  const torch::Tensor aspect = (4 / (pi * pi)) * (torch::atan(w2 / h2) - torch::atan(w1 / h1)).square();
  // Ultralytics computes the trade-off weight under no_grad: it scales the aspect term's gradient.
  const torch::Tensor alpha = (aspect / (aspect - iou + (1 + eps))).detach();
  return iou - (centre_distance2 / diagonal2 + aspect * alpha);
}

Anchors make_anchors(const std::vector<torch::Tensor>& levels, const std::vector<double>& strides, double offset) {
  TORCH_CHECK(levels.size() == strides.size(), "make_anchors: ", levels.size(), " levels but ", strides.size(),
              " strides");
  std::vector<torch::Tensor> points, level_strides;
  for (size_t i = 0; i < levels.size(); ++i) {
    const auto options = torch::TensorOptions().dtype(torch::kFloat).device(levels[i].device());
    const int64_t height = levels[i].size(-2), width = levels[i].size(-1);
    const std::vector<torch::Tensor> grid =
        torch::meshgrid({torch::arange(height, options) + offset, torch::arange(width, options) + offset}, "ij");
    points.push_back(torch::stack({grid[1], grid[0]}, -1).view({-1, 2}));
    level_strides.push_back(torch::full({height * width, 1}, strides[i], options));
  }
  return {torch::cat(points), torch::cat(level_strides)};
}

torch::Tensor dist_to_box(const torch::Tensor& distances, const torch::Tensor& points, BoxFormat format) {
  const torch::Tensor top_left = points - distances.narrow(-1, 0, 2);
  const torch::Tensor bottom_right = points + distances.narrow(-1, 2, 2);
  if (format == BoxFormat::xyxy) return torch::cat({top_left, bottom_right}, -1);
  return torch::cat({(top_left + bottom_right) / 2, bottom_right - top_left}, -1);
}

torch::Tensor box_to_dist(const torch::Tensor& points, const torch::Tensor& boxes, double max_distance) {
  return torch::cat({points - boxes.narrow(-1, 0, 2), boxes.narrow(-1, 2, 2) - points}, -1).clamp(0, max_distance);
}

torch::Tensor expected_distances(const torch::Tensor& logits, const torch::Tensor& bins) {
  const int64_t bin_count = bins.size(0);
  TORCH_CHECK(logits.size(-1) == 4 * bin_count, "expected_distances: last dimension ", logits.size(-1),
              " is not 4 x ", bin_count);
  if (bin_count == 1) return logits;  // no bins (YOLO26's reg_max 1): the outputs are the distances
  std::vector<int64_t> shape = logits.sizes().slice(0, logits.dim() - 1).vec();
  shape.push_back(4);
  shape.push_back(bin_count);
  return (logits.reshape(shape).softmax(-1) * bins).sum(-1);
}

HeadOutputs flatten_head_outputs(const std::vector<torch::Tensor>& levels, int64_t reg_max) {
  std::vector<torch::Tensor> flat;
  for (const torch::Tensor& level : levels) flat.push_back(level.flatten(2));
  const torch::Tensor outputs = torch::cat(flat, 2).to(torch::kFloat).transpose(1, 2);  // [B, A, no]
  const int64_t classes = outputs.size(2) - 4 * reg_max;
  TORCH_CHECK(classes >= 1, "YOLOv8 head outputs have ", outputs.size(2), " channels: no classes after 4 x ", reg_max,
              " distance bins");
  return {outputs.narrow(2, 0, 4 * reg_max), outputs.narrow(2, 4 * reg_max, classes)};
}

torch::Tensor decode_predictions(const std::vector<torch::Tensor>& levels, const std::vector<double>& strides,
                                 int64_t reg_max, BoxFormat format) {
  const HeadOutputs outputs = flatten_head_outputs(levels, reg_max);
  const Anchors anchors = make_anchors(levels, strides);
  const torch::Tensor bins = torch::arange(reg_max, outputs.box_logits.options());
  const torch::Tensor distances = expected_distances(outputs.box_logits, bins);
  const torch::Tensor boxes = dist_to_box(distances, anchors.points, format) * anchors.strides;
  return torch::cat({boxes, outputs.class_logits.sigmoid()}, -1).transpose(1, 2);
}

}  // namespace trainer
