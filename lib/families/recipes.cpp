#include "families/recipes.h"

#include "families/model_family.h"

namespace trainer {

Settings load_settings(const std::optional<std::string>& config_path,
                       const std::vector<std::string>& overrides, Dialect dialect,
                       const CarriedDefinition& carried) {
  return load_settings(config_path, overrides, model_catalog(), dialect, carried);
}

Settings load_settings_from_yaml(const std::string& yaml, const std::string& origin,
                                 const std::vector<std::string>& overrides, const CarriedDefinition& carried) {
  return load_settings_from_yaml(yaml, origin, overrides, model_catalog(), carried);
}

CarriedDefinition carried_definition(const std::optional<ModelCard>& card) {
  return card ? CarriedDefinition{card->model_name, card->model_definition} : CarriedDefinition{};
}

std::optional<TaskKind> task_of_model(const std::string& model) {
  return task_of_model(model_catalog(), model);
}

}  // namespace trainer
