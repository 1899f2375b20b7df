#include "config/model_catalog.h"

namespace trainer {

std::function<bool(const std::string&)> names_starting_with(std::string prefix) {
  return [prefix = std::move(prefix)](const std::string& model) {
    return model.rfind(prefix, 0) == 0;
  };
}

std::optional<TaskKind> task_of_model(const ModelCatalog& catalog, const std::string& model) {
  for (const ModelNames& family : catalog) {
    if (family.answers_to(model)) return family.task;
  }
  return std::nullopt;
}

std::string model_families_text(const ModelCatalog& catalog) {
  std::string text;
  for (size_t i = 0; i < catalog.size(); ++i) {
    if (i > 0) text += i + 1 == catalog.size() ? " or " : ", ";
    text += catalog[i].shown + " (task=" + to_string(catalog[i].task) + ")";
  }
  return text;
}

std::string default_model(const ModelCatalog& catalog, TaskKind task) {
  TORCH_INTERNAL_ASSERT(!catalog.empty(), "no model family is registered");
  for (const ModelNames& family : catalog) {
    if (family.task == task) return family.default_member;
  }
  return catalog.front().default_member;
}

}  // namespace trainer
