#include "tasks/confusion_counts.h"

#include <algorithm>
#include <vector>

#include "tasks/box_ops.h"

namespace trainer {

DetectionConfusion::DetectionConfusion(int64_t classes, double confidence, double iou)
    : classes_(classes),
      confidence_(confidence),
      iou_(iou),
      counts_(static_cast<size_t>((classes + 1) * (classes + 1)), 0) {}

void DetectionConfusion::count(int64_t predicted, int64_t truth) {
  TORCH_CHECK(predicted >= 0 && predicted <= classes_ && truth >= 0 && truth <= classes_,
              "confusion matrix: class out of range");
  ++counts_[static_cast<size_t>(predicted * (classes_ + 1) + truth)];
}

void DetectionConfusion::add_image(const torch::Tensor& detections, const torch::Tensor& gt_boxes,
                                   const torch::Tensor& gt_classes) {
  const torch::Tensor kept = detections.index({detections.select(1, 4) > confidence_}).to(torch::kDouble);
  const auto found = kept.accessor<double, 2>();
  const torch::Tensor truth = gt_classes.to(torch::kLong).contiguous();
  const auto truth_classes = truth.accessor<int64_t, 1>();
  const int64_t detections_kept = kept.size(0), boxes = truth.size(0);
  const int64_t background = classes_;

  struct Candidate {
    int64_t box, detection;
    double iou;
  };
  std::vector<Candidate> candidates;
  if (detections_kept > 0 && boxes > 0) {
    const torch::Tensor iou =
        box_iou(gt_boxes.to(torch::kDouble).unsqueeze(1), kept.narrow(1, 0, 4).unsqueeze(0)).contiguous();
    const auto overlap = iou.accessor<double, 2>();
    for (int64_t b = 0; b < boxes; ++b) {
      for (int64_t d = 0; d < detections_kept; ++d) {
        if (overlap[b][d] > iou_) candidates.push_back({b, d, overlap[b][d]});
      }
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.iou > b.iou; });
  // Best overlap first: a detection's first candidate is its best, and of those kept, a box's first.
  std::vector<bool> detection_taken(static_cast<size_t>(detections_kept), false);
  std::vector<int64_t> match_of_box(static_cast<size_t>(boxes), -1);
  std::vector<bool> detection_matched(static_cast<size_t>(detections_kept), false);
  for (const Candidate& candidate : candidates) {
    if (detection_taken[static_cast<size_t>(candidate.detection)]) continue;
    detection_taken[static_cast<size_t>(candidate.detection)] = true;
    if (match_of_box[static_cast<size_t>(candidate.box)] >= 0) continue;
    match_of_box[static_cast<size_t>(candidate.box)] = candidate.detection;
    detection_matched[static_cast<size_t>(candidate.detection)] = true;
  }
  for (int64_t b = 0; b < boxes; ++b) {
    const int64_t detection = match_of_box[static_cast<size_t>(b)];
    count(detection >= 0 ? static_cast<int64_t>(found[detection][5]) : background, truth_classes[b]);
  }
  for (int64_t d = 0; d < detections_kept; ++d) {
    if (!detection_matched[static_cast<size_t>(d)]) count(static_cast<int64_t>(found[d][5]), background);
  }
}

void add_classification_confusion(torch::Tensor& counts, const torch::Tensor& logits, const torch::Tensor& targets) {
  const int64_t classes = logits.size(1);
  const torch::Tensor cells = logits.argmax(1) * classes + targets.to(torch::kLong);
  counts.index_put_({cells}, torch::ones_like(cells), /*accumulate=*/true);
}

}  // namespace trainer
