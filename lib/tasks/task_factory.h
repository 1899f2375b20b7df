// Settings.task → the Task that bridges its model, data, loss and metrics to the engine.
#pragma once
#include <memory>

#include "config/settings.h"
#include "engine/deployable.h"
#include "engine/task.h"

namespace trainer {

// `card`: a saved model's (its checkpoint's), required when `splits` is none; a task that opens
// its validation split for such a model checks the data's classes against the card's.
std::unique_ptr<Task> make_task(const Settings& settings, DataSplits splits = DataSplits::train_and_val,
                                const ModelCard* card = nullptr);

}  // namespace trainer
