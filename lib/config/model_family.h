// What the config layer knows of models: which task each family trains and each task's usual
// model. It lets a recipe name one and imply the other, as Ultralytics users expect
// (`model=yolov8n` alone trains detection, `task=ocr` alone trains the CRNN). Exact names and
// sizes are the model factories' to check.
#pragma once
#include <optional>
#include <string>

#include "config/settings.h"

namespace trainer {

// The task of the family `model` belongs to by its name (resnet…, crnn, yolov8…); nullopt when
// it belongs to none.
std::optional<TaskKind> task_of_model(const std::string& model);

// "resnet18/34/50 (task=classify), crnn (task=ocr) or yolov8n/s/m/l/x (task=detect)", for messages.
std::string model_families_text();

// The model a task trains when the recipe names none.
std::string default_model(TaskKind task);

}  // namespace trainer
