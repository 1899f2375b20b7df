#include "engine/time_budget.h"

#include <algorithm>
#include <cmath>

namespace trainer {

double budget_seconds(const std::optional<double>& hours) { return hours ? *hours * 3600.0 : 0.0; }

int64_t epochs_in_budget(double budget, double elapsed, int64_t timed, int64_t finished) {
  if (elapsed >= budget) return finished;
  // Epochs too fast for the clock say nothing of the next ones: one more, and the budget decides again.
  if (elapsed <= 0) return finished + 1;
  const double mean_epoch = elapsed / static_cast<double>(std::max<int64_t>(timed, 1));
  return std::max(static_cast<int64_t>(std::ceil(budget / mean_epoch)), finished);
}

}  // namespace trainer
