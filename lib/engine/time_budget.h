// Ultralytics' `time`: a wall-clock budget instead of a count of epochs. After each epoch the run's
// length becomes the epochs the budget holds at the mean epoch time so far
// (ultralytics/engine/trainer.py: epochs = ceil(time * 3600 / mean epoch time)), and the run
// stops after the update that spends it.
#pragma once
#include <cstdint>
#include <optional>

namespace trainer {

// The budget of `time` (hours) in seconds; 0 when there is none (unset or 0, as Ultralytics reads it).
double budget_seconds(const std::optional<double>& hours);

// The run's epochs after `finished` epochs (counted from 0) of which the last `timed` ran in
// `elapsed` seconds of this process (a resumed run times its own epochs, as Ultralytics does):
// ceil(budget / mean epoch time), never fewer than `finished`; `finished` once the budget is spent.
int64_t epochs_in_budget(double budget, double elapsed, int64_t timed, int64_t finished);

}  // namespace trainer
