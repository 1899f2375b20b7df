#include "tasks/end_to_end_detections.h"

#include <ATen/ATen.h>

#include <algorithm>

namespace trainer {

std::vector<torch::Tensor> top_detections(const torch::Tensor& prediction, int64_t max_detections,
                                          double confidence) {
  const torch::Tensor rows =
      prediction.to(torch::kCPU, torch::kFloat).transpose(1, 2);  // [B, A, 4 + C]
  const int64_t anchors = rows.size(1), classes = rows.size(2) - 4;
  const int64_t k = std::min(max_detections, anchors);
  const torch::Tensor boxes = rows.narrow(2, 0, 4), scores = rows.narrow(2, 4, classes);
  // The k anchors whose best class scores highest, then the k best of their anchor-class pairs.
  const torch::Tensor best_anchors =
      std::get<1>(std::get<0>(scores.max(-1)).topk(k, -1));  // [B, k]
  const torch::Tensor candidate_scores =
      scores.gather(1, best_anchors.unsqueeze(-1).expand({-1, -1, classes}));  // [B, k, C]
  const auto [top_scores, pairs] = candidate_scores.flatten(1).topk(k, -1);    // [B, k]
  const torch::Tensor anchor = best_anchors.gather(1, pairs.div(classes, "floor"));
  const torch::Tensor found = torch::cat(
      {boxes.gather(1, anchor.unsqueeze(-1).expand({-1, -1, 4})), top_scores.unsqueeze(-1),
       pairs.remainder(classes).unsqueeze(-1).to(torch::kFloat)},
      -1);  // [B, k, 6]
  std::vector<torch::Tensor> per_image;
  for (int64_t image = 0; image < found.size(0); ++image) {
    const torch::Tensor detections = found[image];
    per_image.push_back(detections.index({detections.select(1, 4).gt(confidence)}).contiguous());
  }
  return per_image;
}

}  // namespace trainer
