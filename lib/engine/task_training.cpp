#include "engine/task_training.h"

#include "data/sampler.h"

namespace trainer {

std::vector<std::vector<size_t>> TaskTraining::epoch_batches(uint64_t seed, int64_t epoch, int64_t batch) const {
  return make_batches(epoch_order(train_indices(), seed, epoch, true), batch, false);
}

}  // namespace trainer
