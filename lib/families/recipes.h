// The recipe loader (config/recipe.h) with the registered model families: a model's task, a
// task's default model and the families named in messages come from them.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "config/recipe.h"
#include "config/settings.h"
#include "io/model_card.h"

namespace trainer {

Settings load_settings(const std::optional<std::string>& config_path,
                       const std::vector<std::string>& overrides, Dialect dialect = Dialect::ultralytics,
                       const CarriedDefinition& carried = {});

// A recipe held as text (e.g. inside a checkpoint); `origin` names it in error messages.
Settings load_settings_from_yaml(const std::string& yaml, const std::string& origin,
                                 const std::vector<std::string>& overrides, const CarriedDefinition& carried = {});

// The model-definition text a checkpoint's card carries for its model= (nothing without a card).
CarriedDefinition carried_definition(const std::optional<ModelCard>& card);

// The task of the registered family `model` belongs to by its name; nullopt when none.
std::optional<TaskKind> task_of_model(const std::string& model);

}  // namespace trainer
