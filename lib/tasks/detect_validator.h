// Detection's validation as Ultralytics' DetectionValidator does it: the v8 loss parts (the
// LibTorch module only: an exported copy has no head logits), class-aware NMS, COCO mAP with its
// precision and recall, the confusion matrix with a background class, the PR, F1, P and R curves
// and the per-class table.
#pragma once
#include <string>
#include <vector>

#include "engine/validator.h"
#include "tasks/detection_metrics.h"

namespace trainer {

class DetectTask;

class DetectValidator : public Validator {
 public:
  explicit DetectValidator(DetectTask& task);

  std::vector<std::string> metric_names() const override;
  std::vector<Meter*> meters() override {
    return {&box_loss_, &cls_loss_, &dfl_loss_, &images_, &confusion_, &detections_};
  }
  void validate_shard(const torch::Device& device, const Shard& shard) override;
  // Fitness is Ultralytics': 0.1 mAP50 + 0.9 mAP50-95. Ultralytics' per-class table (instances,
  // P, R, AP50, AP50-95) goes to Metrics::details.
  Metrics metrics() const override;

 private:
  DetectTask& task_;
  SumMeter box_loss_, cls_loss_, dfl_loss_, images_;
  CountsMeter confusion_;  // [predicted][true], background last: (classes + 1)² cells
  DetectionMetrics detections_;
};

}  // namespace trainer
