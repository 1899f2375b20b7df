// Settings.task → the Task that bridges its model, data, loss and metrics to the engine.
#pragma once
#include <memory>

#include "config/settings.h"
#include "engine/task.h"

namespace trainer {

std::unique_ptr<Task> make_task(const Settings& settings, bool with_train_split = true);

}  // namespace trainer
