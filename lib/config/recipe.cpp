#include "config/recipe.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "config/foreign_keys.h"
#include "config/model_family.h"
#include "config/recipe_keys.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

// The keys a source set, each with where it was set: the rules that fill one key from another
// apply only to keys left at their defaults.
using GivenKeys = std::map<std::string, std::string>;

const RecipeKey& require_key(const std::string& name, const std::string& where) {
  if (const RecipeKey* key = find_recipe_key(name)) return *key;
  const std::optional<std::string> hint = foreign_key_hint(name);
  throw UserError(where + ": unknown key '" + name + "'" +
                  (hint ? ": " + *hint : did_you_mean(name, recipe_key_names())) +
                  "; `trainer keys` lists every key");
}

// `path` names the source in messages: a file, or "<checkpoint>:recipe" for embedded text.
void apply_yaml(Settings& settings, const std::string& text, const std::string& path, GivenKeys& given) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& error) {
    throw UserError(path + ":" + std::to_string(error.mark.line + 1) + ":" +
                    std::to_string(error.mark.column + 1) + ": invalid YAML: " + error.msg);
  }
  if (root.IsNull()) return;
  if (!root.IsMap()) throw UserError(path + ": a recipe is a mapping of key: value lines");
  for (const auto& entry : root) {
    const YAML::Mark mark = entry.first.Mark();
    const std::string where =
        path + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
    const std::string name = entry.first.as<std::string>();
    const RecipeKey& key = require_key(name, where);
    const YAML::Node& node = entry.second;
    RecipeValue value;
    if (key.is_list && node.IsSequence()) {
      std::vector<std::string> items;
      for (const auto& item : node) {
        if (!item.IsScalar()) throw UserError(where + ": key '" + name + "' expects a list of single values");
        items.push_back(trim(item.Scalar()));
      }
      value.text = join(items, ",");
    } else if (!node.IsScalar() && !node.IsNull()) {
      throw UserError(where + ": key '" + name + "' expects a single value, not a list or mapping");
    } else {
      value.is_null = node.IsNull();
      value.text = value.is_null ? "" : trim(node.Scalar());
    }
    const YAML::Mark value_mark = node.Mark();
    value.where = path + ":" + std::to_string(value_mark.line + 1) + ":" +
                  std::to_string(value_mark.column + 1);
    key.assign(settings, value);
    given[name] = value.where;
  }
}

void apply_file(Settings& settings, const std::string& path, GivenKeys& given) {
  std::ifstream in(path);
  if (!std::filesystem::is_regular_file(path) || !in) throw UserError("recipe file not found: " + path);
  std::stringstream text;
  text << in.rdbuf();
  apply_yaml(settings, text.str(), path, given);
}

void apply_override(Settings& settings, const std::string& argument, GivenKeys& given) {
  const std::string where = "override '" + argument + "'";
  const auto equals = argument.find('=');
  const std::string name = trim(argument.substr(0, equals));
  const RecipeKey& key = require_key(name, where);
  RecipeValue value;
  value.where = where;
  if (equals == std::string::npos) {
    if (!key.is_bool) throw UserError(where + ": key '" + name + "' needs a value (" + name + "=…)");
    value.text = "true";
  } else {
    value.text = trim(argument.substr(equals + 1));
    // Ultralytics accepts None in any case; an empty value means the same.
    value.is_null = value.text.empty() || to_lower(value.text) == "none" ||
                    to_lower(value.text) == "null";
  }
  key.assign(settings, value);
  given[name] = where;
}

// Ultralytics' `model=yolov8n.pt` names an architecture and the weights to start from in one
// value, `model=yolov8n.yaml` the architecture alone.
void split_model_file(Settings& settings, const GivenKeys& given) {
  const std::filesystem::path file(settings.model);
  const std::string extension = to_lower(file.extension().string());
  const bool is_weights = extension == ".pt" || extension == ".pth" || extension == ".safetensors";
  if (!is_weights && extension != ".yaml" && extension != ".yml") return;
  const std::string& where = given.at("model");
  const std::string architecture = file.stem().string();
  if (!task_of_model(architecture)) {
    throw UserError(where + ": model=" + settings.model + " names no architecture; give the architecture as model= (" +
                    model_families_text() + ") and the file as pretrained=");
  }
  if (is_weights) {
    if (!settings.pretrained.empty() && settings.pretrained != settings.model) {
      throw UserError(where + ": model=" + settings.model + " names the weights to start from, and pretrained=" +
                      settings.pretrained + " (" + given.at("pretrained") + ") names others; keep one");
    }
    settings.pretrained = settings.model;
  }
  settings.model = architecture;
}

// A model implies its task and a task its usual model (Ultralytics' habit); with neither named,
// an Ultralytics data.yaml means detection. Named both, they must agree.
void resolve_model_and_task(Settings& settings, const GivenKeys& given) {
  const auto task_where = given.find("task");
  const auto model_where = given.find("model");
  if (model_where == given.end()) {
    if (task_where == given.end()) {
      const std::string extension = to_lower(std::filesystem::path(settings.data).extension().string());
      if (extension == ".yaml" || extension == ".yml") settings.task = TaskKind::detect;
    }
    settings.model = default_model(settings.task);
    return;
  }
  split_model_file(settings, given);
  const std::optional<TaskKind> family = task_of_model(settings.model);
  if (!family) {
    throw UserError(model_where->second + ": unknown model '" + settings.model + "'; models are " +
                    model_families_text());
  }
  if (task_where != given.end() && *family != settings.task) {
    throw UserError(model_where->second + ": model '" + settings.model + "' trains task=" + to_string(*family) +
                    ", but task=" + to_string(settings.task) + " (" + task_where->second +
                    "); drop task or make them agree");
  }
  settings.task = *family;
}

// Checks that involve more than one key, after every source has been applied.
void validate(const Settings& settings) {
  if (!settings.batch_ratio.empty() && settings.batch_ratio.size() != settings.select_data.size()) {
    throw UserError("key 'batch_ratio' has " + std::to_string(settings.batch_ratio.size()) +
                    " value(s) but 'select_data' names " + std::to_string(settings.select_data.size()) + " folder(s)");
  }
  if (settings.node_rank >= settings.nnodes) {
    throw UserError("key 'node_rank' must be below nnodes=" + std::to_string(settings.nnodes) + ", got " +
                    std::to_string(settings.node_rank));
  }
  if (!settings.bucket_widths.empty() && settings.bucket_widths.back() > settings.img_w) {
    throw UserError("key 'buckets' lists width " + std::to_string(settings.bucket_widths.back()) +
                    ", wider than imgW=" + std::to_string(settings.img_w));
  }
}

}  // namespace

std::vector<std::string> normalize_overrides(const std::vector<std::string>& arguments) {
  std::vector<std::string> merged;
  for (size_t i = 0; i < arguments.size(); ++i) {
    std::string argument = arguments[i];
    // "key = value" and "key= value" and "key =value" arrive split by the shell.
    if (i + 1 < arguments.size() && arguments[i + 1] == "=") {
      argument += "=" + (i + 2 < arguments.size() ? arguments[i + 2] : std::string());
      i += 2;
    } else if (i + 1 < arguments.size() && !argument.empty() && argument.back() == '=') {
      argument += arguments[++i];
    } else if (i + 1 < arguments.size() && arguments[i + 1].size() > 1 &&
               arguments[i + 1].front() == '=') {
      argument += arguments[++i];
    }
    merged.push_back(argument);
  }
  return merged;
}

Settings load_settings(const std::optional<std::string>& config_path,
                       const std::vector<std::string>& overrides) {
  Settings settings;
  GivenKeys given;
  if (config_path) apply_file(settings, *config_path, given);
  for (const auto& argument : normalize_overrides(overrides)) apply_override(settings, argument, given);
  resolve_model_and_task(settings, given);
  validate(settings);
  return settings;
}

Settings load_settings_from_yaml(const std::string& yaml, const std::string& origin,
                                 const std::vector<std::string>& overrides) {
  Settings settings;
  GivenKeys given;
  apply_yaml(settings, yaml, origin, given);
  for (const auto& argument : normalize_overrides(overrides)) apply_override(settings, argument, given);
  resolve_model_and_task(settings, given);
  validate(settings);
  return settings;
}

std::string to_yaml(const Settings& settings) {
  std::ostringstream out;
  for (const auto& key : recipe_keys()) {
    YAML::Emitter value;
    value << key.show(settings);
    out << key.name << ": " << value.c_str() << "\n";
  }
  return out.str();
}

}  // namespace trainer
