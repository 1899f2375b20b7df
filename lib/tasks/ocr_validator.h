// Text recognition's validation over the width buckets of the validation split: the plain CTC
// loss (Attn: its cross-entropy), exact-match accuracy, norm_ED and CER, as EasyOCR reports them; a
// few decoded lines go to the log.
#pragma once
#include <string>
#include <vector>

#include "engine/validator.h"
#include "tasks/text_metrics.h"

namespace trainer {

class OcrTask;

class OcrValidator : public Validator {
 public:
  explicit OcrValidator(OcrTask& task) : task_(task) {}

  // The loss first: val/ctc, or val/attn with Prediction Attn.
  std::vector<std::string> metric_names() const override;
  std::vector<Meter*> meters() override { return {&loss_, &scores_}; }
  void validate_shard(const torch::Device& device, const Shard& shard) override;
  Metrics metrics() const override;

 private:
  OcrTask& task_;
  SumMeter loss_;  // the plain CTC (or Attn's cross-entropy) summed over validation samples
  TextScores scores_;
};

}  // namespace trainer
