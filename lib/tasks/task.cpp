#include "tasks/task.h"

#include "data/sampler.h"
#include "util/error.h"

namespace trainer {

std::vector<std::vector<size_t>> Task::epoch_batches(uint64_t seed, int64_t epoch, int64_t batch) const {
  return make_batches(epoch_order(train_indices(), seed, epoch, true), batch, false);
}

std::vector<std::string> Task::predict(const std::vector<std::string>&, const torch::Device&, const PredictOptions&) {
  throw UserError("predict is not available for task '" + name() + "'");
}

}  // namespace trainer
