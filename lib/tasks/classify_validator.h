// Classification's validation over the validation split with the evaluation preprocessing: the
// plain cross-entropy (as timm reports it, whatever the training smoothing), top-1 and top-5
// accuracy, and the confusion matrix.
#pragma once
#include <string>
#include <vector>

#include "engine/validator.h"

namespace trainer {

class ClassifyTask;

class ClassifyValidator : public Validator {
 public:
  explicit ClassifyValidator(ClassifyTask& task);

  std::vector<std::string> metric_names() const override { return {"val/loss", "top1", "top5"}; }
  std::vector<Meter*> meters() override { return {&loss_, &top1_, &topk_, &samples_, &confusion_}; }
  void validate_shard(const torch::Device& device, const Shard& shard) override;
  Metrics metrics() const override;

 private:
  ClassifyTask& task_;
  SumMeter loss_, top1_, topk_, samples_;  // loss sum, top-1 and top-k hits, samples
  CountsMeter confusion_;                  // [predicted][true], classes² cells
};

}  // namespace trainer
