#include "engine/step_executor.h"

#include <algorithm>

namespace trainer {

std::vector<double> StepStats::mean_losses() const {
  std::vector<double> means;
  for (double sum : loss_sums)
    means.push_back(sum / static_cast<double>(std::max<int64_t>(batches, 1)));
  return means;
}

}  // namespace trainer
