#include "tasks/task.h"

#include "data/sampler.h"
#include "util/error.h"

namespace trainer {

torch::Tensor padded_rows(const torch::Tensor& input, int64_t rows) {
  if (input.size(0) == rows) return input;
  std::vector<int64_t> shape = input.sizes().vec();
  shape[0] = rows - input.size(0);
  return torch::cat({input, torch::zeros(shape, input.options())});
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
