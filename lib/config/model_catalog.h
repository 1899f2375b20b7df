// What the config layer knows of models: the names each family answers to, the task it trains
// and its usual member. It lets a recipe name one and imply the other, as Ultralytics users
// expect (`model=yolov8n` alone trains detection, `task=ocr` alone trains the CRNN). Config owns
// this plain description and drives it; the model families (lib/families) fill it from their
// registrations and hand it to the recipe loader. Exact names and sizes are the families'
// builders to check.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "config/setting_types.h"

namespace trainer {

// One family's names.
struct ModelNames {
  // Whether a model name belongs to the family (by prefix, by pattern: yolov8n …).
  std::function<bool(const std::string&)> answers_to;
  std::string shown;                   ///< how messages name its models: "resnet18/34/50"
  TaskKind task = TaskKind::classify;  ///< the task its models train
  std::string default_member;          ///< the model its task trains when none is named
  // Ultralytics' names: typed bare on the command line (`model=yolov8s`), one means its released
  // weights NAME.pt, as Ultralytics' check_model_file_from_stem reads it; the architecture alone is
  // NAME.yaml. Other families' bare names (timm's resnet50, crnn) name the architecture.
  bool bare_means_weights = false;
};

// The families in the order messages list them; the first of a task gives its default model.
using ModelCatalog = std::vector<ModelNames>;

// A family that answers to every name starting with `prefix` (resnet…, yolov8…).
std::function<bool(const std::string&)> names_starting_with(std::string prefix);

// The task of the family `model` belongs to by its name; nullopt when it belongs to none.
std::optional<TaskKind> task_of_model(const ModelCatalog& catalog, const std::string& model);

// "resnet18/34/50 (task=classify), crnn (task=ocr) or yolov8n/s/m/l/x (task=detect)", for messages.
std::string model_families_text(const ModelCatalog& catalog);

// The model a task trains when the recipe names none.
std::string default_model(const ModelCatalog& catalog, TaskKind task);

}  // namespace trainer
