#include "config/command_arguments.h"

#include <algorithm>
#include <cstdlib>

#include "config/recipe.h"
#include "config/recipe_keys.h"
#include "util/text.h"

namespace trainer {
namespace {

// timm's short flags.
std::string long_name(const std::string& flag) {
  if (flag == "-b") return "batch_size";
  if (flag == "-j") return "workers";
  if (flag.rfind("--", 0) == 0 && flag.size() > 2) return flag.substr(2);
  return "";
}

bool is_number(const std::string& text) {
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0';
}

// What follows a flag up to the next flag or key=value is its value (`--lr -0.1` included).
bool is_flag_value(const std::string& argument) {
  return !argument.empty() && argument.find('=') == std::string::npos && (argument[0] != '-' || is_number(argument));
}

// Ultralytics warns and drops a trailing comma (`epochs=3,`).
std::string without_trailing_comma(std::string argument) {
  if (argument.size() > 1 && argument.back() == ',') argument.pop_back();
  return argument;
}

// The override's name: a flag's dashes are underscores, and one of timm's own spellings keeps its
// leading dashes, so that it is read as timm's.
std::string override_name(std::string name) {
  std::replace(name.begin(), name.end(), '-', '_');
  return find_spelling_of(ForeignTool::timm, name) ? "--" + name : name;
}

}  // namespace

std::vector<std::string> overrides_of_arguments(const std::vector<std::string>& arguments) {
  const std::vector<std::string> merged = normalize_overrides(arguments);
  std::vector<std::string> overrides;
  for (size_t i = 0; i < merged.size(); ++i) {
    const std::string argument = without_trailing_comma(merged[i]);
    const std::string flag = long_name(argument.substr(0, argument.find('=')));
    if (flag.empty()) {
      overrides.push_back(argument);
    } else if (const auto equals = argument.find('='); equals != std::string::npos) {
      overrides.push_back(override_name(flag) + "=" + argument.substr(equals + 1));
    } else {
      std::vector<std::string> values;
      while (i + 1 < merged.size() && is_flag_value(merged[i + 1]))
        values.push_back(without_trailing_comma(merged[++i]));
      overrides.push_back(values.empty() ? override_name(flag) : override_name(flag) + "=" + join(values, ","));
    }
  }
  return overrides;
}

}  // namespace trainer
