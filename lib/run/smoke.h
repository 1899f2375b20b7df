// `trainer smoke` (R24): ~50 updates of a tiny model on random data with the recipe's
// accumulate/AMP/compile/optimizer settings, checking the things a long run depends on.
#pragma once
#include <string>
#include <vector>

#include "config/settings.h"

namespace trainer {

struct SmokeReport {
  int64_t updates = 0;
  double first_epoch_loss = 0;
  double last_epoch_loss = 0;
  double gradient_relative_error = 0;  ///< accumulated vs big-batch gradient (R15)
  double accumulated_to_sum_ratio = 0; ///< |accumulated| / |sum of micro-batch mean-loss grads|, ~1/N
  bool checkpoint_round_trip = false;
  std::vector<std::string> failures;
  bool ok() const { return failures.empty(); }
};

SmokeReport run_smoke(const Settings& settings);

}  // namespace trainer
