#include "engine/task.h"

#include "data/sampler.h"
#include "util/error.h"

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

std::vector<double> add_up(const std::vector<std::vector<double>>& partials) {
  std::vector<double> sums;
  for (const auto& partial : partials) {
    if (sums.empty()) sums.assign(partial.size(), 0.0);
    TORCH_CHECK(partial.size() == sums.size(), "validation partials of different layouts");
    for (size_t i = 0; i < partial.size(); ++i) sums[i] += partial[i];
  }
  return sums;
}

std::vector<std::vector<size_t>> Task::epoch_batches(uint64_t seed, int64_t epoch, int64_t batch) const {
  return make_batches(epoch_order(train_indices(), seed, epoch, true), batch, false);
}

std::vector<std::string> Task::predict(const std::vector<std::string>&, const torch::Device&, const PredictOptions&) {
  throw UserError("predict is not available for task '" + name() + "'");
}

}  // namespace trainer
