// The table of recipe keys: one entry per key with its parser and printer. The table is the
// single list of keys: parsing, did-you-mean, the resolved-recipe dump and the docs test use it.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "config/settings.h"

namespace trainer {

// One value as written by the user, with where it was written for error messages.
struct RecipeValue {
  std::string text;   // scalar text, already trimmed; a YAML sequence arrives joined by commas
  bool is_null = false;
  std::string where;  // "configs/demo.yaml:4:8" or "override 'batch=abc'"
};

struct RecipeKey {
  std::string name;
  bool is_bool = false;  // a bare `key` on the command line means key=true
  std::function<void(Settings&, const RecipeValue&)> assign;
  std::function<std::string(const Settings&)> show;
  bool is_list = false;  // takes a YAML sequence, or comma-separated items in one value
};

const std::vector<RecipeKey>& recipe_keys();
const RecipeKey* find_recipe_key(const std::string& name);
std::vector<std::string> recipe_key_names();

}  // namespace trainer
