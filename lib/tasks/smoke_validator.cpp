#include "tasks/smoke_validator.h"

#include "tasks/smoke_task.h"

namespace trainer {

void SmokeValidator::validate_shard(const torch::Device& device, const Shard& shard) {
  c10::InferenceMode inference;
  const torch::Tensor rows = torch::arange(shard.rank, task_.val_images_.size(0), shard.count);
  const torch::Tensor images = task_.val_images_.index_select(0, rows).to(device);
  const torch::Tensor predicted = task_.model_->forward(images).argmax(1).cpu();
  correct_.add(predicted.eq(task_.val_labels_.index_select(0, rows)).sum().item<double>());
  samples_.add(static_cast<double>(rows.numel()));
}

Metrics SmokeValidator::metrics() const {
  const double accuracy = correct_.value() / std::max(samples_.value(), 1.0);
  Metrics metrics;
  metrics.values = {{"accuracy", accuracy}};
  metrics.fitness = accuracy;
  return metrics;
}

}  // namespace trainer
