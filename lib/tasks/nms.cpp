#include "tasks/nms.h"

#include <array>
#include <unordered_map>

namespace trainer {
namespace {

using Box = std::array<float, 4>;

// torchvision's nms overlap: no epsilon, so two empty boxes never suppress each other (NaN > t is false).
float overlap(const Box& a, const Box& b) {
  const float width = std::max(0.0f, std::min(a[2], b[2]) - std::max(a[0], b[0]));
  const float height = std::max(0.0f, std::min(a[3], b[3]) - std::max(a[1], b[1]));
  const float inter = width * height;
  return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter);
}

struct Candidates {
  torch::Tensor anchor, label, confidence;  ///< [K] each
};

Candidates select_candidates(const torch::Tensor& scores, const NmsOptions& options) {
  if (options.multi_label) {
    const torch::Tensor hits = scores.gt(options.confidence).nonzero();  // [K, 2]: (anchor, class)
    const torch::Tensor anchor = hits.select(1, 0), label = hits.select(1, 1);
    return {anchor, label, scores.index({anchor, label})};
  }
  const auto [best, best_label] = scores.max(1);
  const torch::Tensor anchor = best.gt(options.confidence).nonzero().squeeze(1);
  return {anchor, best_label.index_select(0, anchor), best.index_select(0, anchor)};
}

torch::Tensor suppress(const torch::Tensor& image_prediction, const NmsOptions& options) {
  const torch::Tensor rows = image_prediction.t();  // [A, 4 + classes]
  const Candidates candidates = select_candidates(rows.narrow(1, 4, rows.size(1) - 4), options);
  const int64_t count = std::min(candidates.confidence.size(0), options.max_candidates);
  const torch::Tensor order =
      std::get<1>(candidates.confidence.sort(/*stable=*/true, /*dim=*/0, /*descending=*/true)).narrow(0, 0, count);
  const torch::Tensor boxes =
      rows.narrow(1, 0, 4).index_select(0, candidates.anchor.index_select(0, order)).contiguous();
  const torch::Tensor labels = candidates.label.index_select(0, order).contiguous();
  const torch::Tensor confidences = candidates.confidence.index_select(0, order);

  const auto* box_data = reinterpret_cast<const Box*>(boxes.data_ptr<float>());
  const int64_t* label_data = labels.data_ptr<int64_t>();
  std::vector<int64_t> kept;
  std::unordered_map<int64_t, std::vector<int64_t>> kept_by_class;
  for (int64_t i = 0; i < count && static_cast<int64_t>(kept.size()) < options.max_detections; ++i) {
    std::vector<int64_t>& same_class = kept_by_class[label_data[i]];
    const bool suppressed = std::any_of(same_class.begin(), same_class.end(),
                                        [&](int64_t k) { return overlap(box_data[i], box_data[k]) > options.iou; });
    if (suppressed) continue;
    kept.push_back(i);
    same_class.push_back(i);
  }
  const torch::Tensor index = torch::tensor(kept, torch::kLong);
  return torch::cat({boxes.index_select(0, index), confidences.index_select(0, index).unsqueeze(1),
                     labels.index_select(0, index).unsqueeze(1).to(torch::kFloat)},
                    1);
}

}  // namespace

std::vector<torch::Tensor> non_max_suppression(const torch::Tensor& prediction, const NmsOptions& options) {
  TORCH_CHECK(prediction.dim() == 3 && prediction.size(1) > 4,
              "non_max_suppression expects [B, 4 + classes, anchors], got ", prediction.sizes());
  const torch::Tensor cpu = prediction.detach().to(torch::kCPU, torch::kFloat);
  std::vector<torch::Tensor> detections;
  for (int64_t image = 0; image < cpu.size(0); ++image) detections.push_back(suppress(cpu[image], options));
  return detections;
}

}  // namespace trainer
