// Recipe → Settings: a YAML file (optional) then `key=value` overrides, each value typed and
// checked once. Errors are UserErrors naming the key and where it came from (file:line:column
// or the override), with a did-you-mean suggestion for unknown keys.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "config/dialect.h"
#include "config/model_catalog.h"
#include "config/settings.h"

namespace trainer {

// Ultralytics-style argument list: "key=value", "key = value" split over three arguments, or a
// bare boolean key meaning true.
std::vector<std::string> normalize_overrides(const std::vector<std::string>& arguments);

// A recipe file's keys are looked up in the spellings of the tool whose file it is (tool_of_keys:
// an Ultralytics args.yaml, an EasyOCR config); `key=value` overrides in Ultralytics', and
// `--key=value` ones (timm's flags, as overrides_of_arguments writes them) in timm's.
// `catalog`: the model families, which tie a model name to its task (families/recipes.h passes
// the registered ones). `dialect`: the command's (config/command_arguments.h), whose defaults the
// recipe starts from; it is named in one info line.
Settings load_settings(const std::optional<std::string>& config_path, const std::vector<std::string>& overrides,
                       const ModelCatalog& catalog, Dialect dialect = Dialect::ultralytics);

// A recipe held as text (e.g. inside a checkpoint); `origin` names it in error messages.
Settings load_settings_from_yaml(const std::string& yaml, const std::string& origin,
                                 const std::vector<std::string>& overrides, const ModelCatalog& catalog);

// The resolved recipe as YAML, every key in table order; loading it gives the same Settings.
std::string to_yaml(const Settings& settings);

}  // namespace trainer
