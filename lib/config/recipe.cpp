#include "config/recipe.h"

#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "config/model_family.h"
#include "config/recipe_keys.h"
#include "config/user_settings.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

// The keys a source set, each with where it was set: the rules that fill one key from another
// apply only to keys left at their defaults.
using GivenKeys = std::map<std::string, std::string>;

// Our key, one of its other tools' spellings with the same meaning (said in an info line), or a
// UserError that says what the name is here.
const RecipeKey& require_key(const std::string& name, const std::string& where) {
  if (const RecipeKey* key = find_recipe_key(name)) return *key;
  const std::optional<ForeignMatch> foreign = find_foreign_spelling(name);
  if (foreign && foreign->key && foreign->spelling.meaning == ForeignMeaning::same) {
    spdlog::info("{}: {}'s {} is {} here{}", where, tool_name(foreign->spelling.tool), name, foreign->key->name,
                 foreign->spelling.note.empty() ? "" : " (" + foreign->spelling.note + ")");
    return *foreign->key;
  }
  throw UserError(where + ": unknown key '" + name + "'" +
                  (foreign ? ": " + foreign->spelling.note : did_you_mean(name, recipe_key_names())) +
                  "; `trainer keys` lists every key");
}

// One warning per key the user set away from its default that changes nothing for the run's task
// (mixup on classification, imgH on detection).
void warn_keys_without_effect(const Settings& settings, const std::vector<std::string>& names) {
  static const Settings defaults;
  for (const std::string& name : names) {
    const RecipeKey* key = find_recipe_key(name);
    if (!key || applies_to(key->tasks, settings.run.task) || key->show(settings) == key->show(defaults)) continue;
    spdlog::warn("{}={} does nothing for task={}: it applies to {}", name, key->show(settings),
                 to_string(settings.run.task), tasks_text(key->tasks));
  }
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
    given[key.name] = value.where;
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
  given[key.name] = where;
}

// Every override is tried, so one run reports all of a command line's problems, one per line.
void apply_overrides(Settings& settings, const std::vector<std::string>& overrides, GivenKeys& given) {
  std::vector<std::string> problems;
  for (const auto& argument : normalize_overrides(overrides)) {
    try {
      apply_override(settings, argument, given);
    } catch (const UserError& error) {
      problems.emplace_back(error.what());
    }
  }
  if (problems.size() == 1) throw UserError(problems.front());
  if (!problems.empty()) {
    throw UserError(std::to_string(problems.size()) + " problems on the command line:\n  " + join(problems, "\n  "));
  }
}

// Ultralytics' `model=yolov8n.pt` names an architecture and the weights to start from in one
// value, `model=yolov8n.yaml` the architecture alone.
void split_model_file(Settings& settings, const GivenKeys& given) {
  const std::filesystem::path file(settings.run.model);
  const std::string extension = to_lower(file.extension().string());
  const bool is_weights = extension == ".pt" || extension == ".pth" || extension == ".safetensors";
  if (!is_weights && extension != ".yaml" && extension != ".yml") return;
  const std::string& where = given.at("model");
  const std::string architecture = file.stem().string();
  if (!task_of_model(architecture)) {
    throw UserError(where + ": model=" + settings.run.model + " names no architecture; give the architecture as model= (" +
                    model_families_text() + ") and the file as pretrained=");
  }
  if (is_weights) {
    if (!settings.run.pretrained.empty() && settings.run.pretrained != settings.run.model) {
      throw UserError(where + ": model=" + settings.run.model + " names the weights to start from, and pretrained=" +
                      settings.run.pretrained + " (" + given.at("pretrained") + ") names others; keep one");
    }
    settings.run.pretrained = settings.run.model;
  }
  settings.run.model = architecture;
}

// A model implies its task and a task its usual model (Ultralytics' habit); with neither named,
// an Ultralytics data.yaml means detection. Named both, they must agree.
void resolve_model_and_task(Settings& settings, const GivenKeys& given) {
  const auto task_where = given.find("task");
  const auto model_where = given.find("model");
  if (model_where == given.end()) {
    if (task_where == given.end()) {
      const std::string extension = to_lower(std::filesystem::path(settings.run.data).extension().string());
      if (extension == ".yaml" || extension == ".yml") settings.run.task = TaskKind::detect;
    }
    settings.run.model = default_model(settings.run.task);
    return;
  }
  split_model_file(settings, given);
  const std::optional<TaskKind> family = task_of_model(settings.run.model);
  if (!family) {
    throw UserError(model_where->second + ": unknown model '" + settings.run.model + "'; models are " +
                    model_families_text());
  }
  if (task_where != given.end() && *family != settings.run.task) {
    throw UserError(model_where->second + ": model '" + settings.run.model + "' trains task=" + to_string(*family) +
                    ", but task=" + to_string(settings.run.task) + " (" + task_where->second +
                    "); drop task or make them agree");
  }
  settings.run.task = *family;
}

// Checks that involve more than one key, after every source has been applied.
void validate(const Settings& settings) {
  if (!settings.ocr.batch_ratio.empty() && settings.ocr.batch_ratio.size() != settings.ocr.select_data.size()) {
    throw UserError("key 'batch_ratio' has " + std::to_string(settings.ocr.batch_ratio.size()) +
                    " value(s) but 'select_data' names " + std::to_string(settings.ocr.select_data.size()) + " folder(s)");
  }
  if (settings.dist.node_rank >= settings.dist.nnodes) {
    throw UserError("key 'node_rank' must be below nnodes=" + std::to_string(settings.dist.nnodes) + ", got " +
                    std::to_string(settings.dist.node_rank));
  }
  if (!settings.ocr.bucket_widths.empty() && settings.ocr.bucket_widths.back() > settings.ocr.img_w) {
    throw UserError("key 'buckets' lists width " + std::to_string(settings.ocr.bucket_widths.back()) +
                    ", wider than imgW=" + std::to_string(settings.ocr.img_w));
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

namespace {

std::vector<std::string> names_of(const GivenKeys& given) {
  std::vector<std::string> names;
  for (const auto& entry : given) names.push_back(entry.first);
  return names;
}

}  // namespace

Settings load_settings(const std::optional<std::string>& config_path,
                       const std::vector<std::string>& overrides) {
  Settings settings;
  GivenKeys given;
  if (config_path) apply_file(settings, *config_path, given);
  apply_overrides(settings, overrides, given);
  if (!given.count("project")) settings.output.project = load_user_settings().runs_dir;
  resolve_model_and_task(settings, given);
  validate(settings);
  warn_keys_without_effect(settings, names_of(given));
  return settings;
}

Settings load_settings_from_yaml(const std::string& yaml, const std::string& origin,
                                 const std::vector<std::string>& overrides) {
  Settings settings;
  GivenKeys given;
  apply_yaml(settings, yaml, origin, given);
  GivenKeys overridden;
  apply_overrides(settings, overrides, overridden);
  for (const auto& entry : overridden) given[entry.first] = entry.second;
  resolve_model_and_task(settings, given);
  validate(settings);
  // The embedded recipe was checked when it was written: only what this command changes warns.
  warn_keys_without_effect(settings, names_of(overridden));
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
