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

// The text of a model-definition file (Ultralytics' model yaml) that a checkpoint carries for the
// recipe's model= `model`: the model is built from it, not from the file, which may have moved
// or changed since (an Ultralytics .pt carries its yaml dict the same way). `model` empty: the
// definition file the recipe names, whatever its name (an ONNX file's metadata has no model name).
struct CarriedDefinition {
  std::string model;
  std::string text;
};

// A recipe file's keys are looked up in the spellings of the tool whose file it is (tool_of_keys:
// an Ultralytics args.yaml, an EasyOCR config); `key=value` overrides in Ultralytics', and
// `--key=value` ones (timm's flags, as overrides_of_arguments writes them) in timm's.
// `catalog`: the model families, which tie a model name to its task (families/recipes.h passes
// the registered ones). `dialect`: the command's (config/command_arguments.h), whose defaults the
// recipe starts from; it is named in one info line. A model= naming a model-definition file gets
// its text in settings.run.model_definition (`carried`'s, where it names that model; the task
// is then the recipe's, as the model's head cannot be read from a file that is gone).
Settings load_settings(const std::optional<std::string>& config_path, const std::vector<std::string>& overrides,
                       const ModelCatalog& catalog, Dialect dialect = Dialect::ultralytics,
                       const CarriedDefinition& carried = {});

// A recipe held as text (e.g. inside a checkpoint); `origin` names it in error messages.
Settings load_settings_from_yaml(const std::string& yaml, const std::string& origin,
                                 const std::vector<std::string>& overrides, const ModelCatalog& catalog,
                                 const CarriedDefinition& carried = {});

// The resolved recipe as YAML, every key in table order; loading it gives the same Settings.
std::string to_yaml(const Settings& settings);

}  // namespace trainer
