#include "engine/validator.h"

#include <optional>

namespace trainer {

torch::Tensor padded_rows(const torch::Tensor& input, int64_t rows) {
  if (input.size(0) == rows) return input;
  std::vector<int64_t> shape = input.sizes().vec();
  shape[0] = rows - input.size(0);
  return torch::cat({input, torch::zeros(shape, input.options())});
}

void for_each_validation_batch(torch::nn::Module& model, Loader& loader, size_t batches, int64_t rows,
                               const torch::Device& device, const ValidationVisit& visit) {
  const bool was_training = model.is_training();
  model.eval();
  {
    c10::InferenceMode inference;
    for (size_t position = 0; position < batches; ++position) {
      std::optional<Batch> batch = loader.next();
      TORCH_INTERNAL_ASSERT(batch, "validation loader ended after ", position, " of ", batches, " batches");
      batch->to(device);
      visit(position, *batch, padded_rows(batch->input, rows));
    }
  }
  if (was_training) model.train();
}

Metrics Validator::validate(const torch::Device& device, const Shard& shard, Collective& collective) {
  const std::vector<Meter*> all = meters();
  for (Meter* meter : all) meter->reset();
  validate_shard(device, shard);
  sum_over_ranks(all, collective);
  return metrics();
}

}  // namespace trainer
