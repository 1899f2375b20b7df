// The smoke task's validation: its net's accuracy on held-out images labelled by the same teacher.
#pragma once
#include <string>
#include <vector>

#include "engine/validator.h"

namespace trainer {

class SmokeTask;

class SmokeValidator : public Validator {
 public:
  explicit SmokeValidator(SmokeTask& task) : task_(task) {}

  std::vector<std::string> metric_names() const override { return {"accuracy"}; }
  std::vector<Meter*> meters() override { return {&correct_, &samples_}; }
  void validate_shard(const torch::Device& device, const Shard& shard) override;
  Metrics metrics() const override;

 private:
  SmokeTask& task_;
  SumMeter correct_, samples_;
};

}  // namespace trainer
