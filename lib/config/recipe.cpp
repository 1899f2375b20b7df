#include "config/recipe.h"

#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "config/device_list.h"
#include "config/foreign_keys.h"
#include "config/hub_weights.h"
#include "config/model_catalog.h"
#include "config/recipe_keys.h"
#include "config/user_settings.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

// The keys a source set, each with where it was set: the rules that fill one key from another
// apply only to keys left at their defaults.
using GivenKeys = std::map<std::string, std::string>;

// What the sources of one recipe came to besides the settings: every problem (so a file's are
// all reported in one run) and the other tools' keys taken at values that ask for nothing.
struct LoadNotes {
  std::vector<std::string> problems;
  std::vector<std::string> inert;
  std::vector<std::string> read_elsewhere;  // "half (Ultralytics: val, predict and export)"
};

// An empty value, none, or a number and a word in any spelling: "0.0" is "0", "True" is "true".
bool same_value(const std::string& written, const std::string& expected) {
  const std::string lowered = to_lower(trim(written));
  if (expected == "*" || lowered == expected) return true;
  if (expected.empty()) return lowered == "none" || lowered == "null" || lowered == "~";
  char* written_end = nullptr;
  char* expected_end = nullptr;
  const double a = std::strtod(lowered.c_str(), &written_end);
  const double b = std::strtod(expected.c_str(), &expected_end);
  return !lowered.empty() && *written_end == '\0' && *expected_end == '\0' && a == b;
}

bool is_inert(const ForeignSpelling& spelling, const RecipeValue& value) {
  return std::any_of(spelling.inert_values.begin(), spelling.inert_values.end(), [&](const std::string& expected) {
    return same_value(value.is_null ? "" : value.text, expected);
  });
}

// Where a name was read: its place for messages, and the tool whose file or flags it came from
// (nullopt: a recipe of ours), whose spellings it is looked up in first.
struct NameSource {
  std::string where;
  std::optional<ForeignTool> tool;
};

// Sets `name` from `value`: our key, another tool's spelling of it (said in an info line), or
// another tool's key at a value that asks for nothing (noted); anything else is a UserError
// that says what the name is here. `source.where` places the name, value.where the value.
void apply_value(Settings& settings, const std::string& name, const RecipeValue& value, const NameSource& source,
                 GivenKeys& given, LoadNotes& notes) {
  const std::string& key_where = source.where;
  if (const RecipeKey* key = find_recipe_key(name)) {
    key->assign(settings, value);
    given[key->name] = value.where;
    return;
  }
  const std::optional<ForeignMatch> foreign = find_foreign_spelling(name, source.tool);
  if (!foreign) {
    throw UserError(key_where + ": unknown key '" + name + "'" + did_you_mean(name, recipe_key_names()) +
                    "; `trainer keys` lists every key");
  }
  const ForeignSpelling& spelling = foreign->spelling;
  // An accepted spelling at a value that asks for nothing (cos_lr: false) sets nothing.
  if (foreign->key && spelling.meaning == ForeignMeaning::same && is_inert(spelling, value)) {
    notes.inert.push_back(name);
    return;
  }
  if (foreign->key && spelling.meaning == ForeignMeaning::same) {
    spdlog::info("{}: {}'s {} is {} here{}", key_where, tool_name(spelling.tool), name, foreign->key->name,
                 spelling.note.empty() ? "" : " (" + spelling.note + ")");
    (spelling.assign ? spelling.assign : foreign->key->assign)(settings, value);
    given[foreign->key->name] = value.where;
    return;
  }
  if (!spelling.read_by.empty()) {
    notes.read_elsewhere.push_back(name + " (" + tool_name(spelling.tool) + ": " + spelling.read_by + ")");
    return;
  }
  if (is_inert(spelling, value)) {
    notes.inert.push_back(name);
    return;
  }
  if (spelling.inert_values.empty()) throw UserError(key_where + ": unknown key '" + name + "': " + spelling.note);
  throw UserError(value.where + ": " + name + "=" + value.text + " (" + tool_name(spelling.tool) +
                  ") asks for what is not done here: " + spelling.note);
}

// Runs one step of reading a source; its UserError becomes one of the notes' problems.
template <typename Step>
void noting_problems(LoadNotes& notes, Step step) {
  try {
    step();
  } catch (const UserError& error) {
    notes.problems.emplace_back(error.what());
  }
}

// All problems of the sources in one error; the other tools' keys that ask for nothing in one line.
void report(const LoadNotes& notes) {
  if (notes.problems.size() == 1) throw UserError(notes.problems.front());
  if (!notes.problems.empty()) {
    throw UserError(std::to_string(notes.problems.size()) + " problems in the recipe:\n  " +
                    join(notes.problems, "\n  "));
  }
  if (!notes.read_elsewhere.empty()) {
    spdlog::info("{} keys that their tool reads only in the mode or task named are ignored, as a training run of "
                 "that tool ignores them: {}",
                 notes.read_elsewhere.size(), join(notes.read_elsewhere, ", "));
  }
  if (!notes.inert.empty()) {
    spdlog::info(
        "{} keys of other tools mean nothing here at the values given, and are ignored: {} (docs/"
        "ultralytics.md, docs/timm.md and docs/easyocr.md say why)",
        notes.inert.size(), join(notes.inert, ", "));
  }
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

std::string mark_text(const std::string& path, const YAML::Mark& mark) {
  return path + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

// One `key: value` as a source gave it. Every source is merged first, a later value of a name
// replacing an earlier one (the command line's the file's), and only then checked, as Ultralytics
// merges its cfg and overrides before check_cfg: a file's value the command line replaces is
// never read.
struct PendingValue {
  std::string name;
  RecipeValue value;
  NameSource source;
  bool is_default = false;  // null, or '' for a key that takes no '' of its own: the key's default
};
using PendingValues = std::vector<PendingValue>;

void merge(PendingValues& pending, PendingValue entry) {
  pending.erase(std::remove_if(pending.begin(), pending.end(),
                               [&](const PendingValue& earlier) { return earlier.name == entry.name; }),
                pending.end());
  pending.push_back(std::move(entry));
}

// Our key that `name` sets, read from `tool`'s file or flags; nullptr for none.
const RecipeKey* target_key(const std::string& name, std::optional<ForeignTool> tool) {
  if (const RecipeKey* key = find_recipe_key(name)) return key;
  const std::optional<ForeignMatch> foreign = find_foreign_spelling(name, tool);
  return foreign && foreign->spelling.meaning == ForeignMeaning::same ? foreign->key : nullptr;
}

// A null or empty value is the key's default, as Ultralytics treats None and '' (`project: ''`,
// EasyOCR's `experiment_name: ''`), except for a key to which '' is a value (`symbol: ''`).
bool means_default(const PendingValue& entry) {
  if (entry.value.is_sequence) return false;
  if (entry.value.is_null && entry.value.text.empty()) return true;
  if (!entry.value.text.empty()) return false;
  const RecipeKey* key = target_key(entry.name, entry.source.tool);
  return key == nullptr || !key->takes_empty;
}

// True where `name` is another tool's key taken at any value: it may hold a mapping or a list
// (EasyOCR's network_params, Ultralytics' embed), which nothing reads.
bool takes_any_value(const std::string& name, std::optional<ForeignTool> tool) {
  if (find_recipe_key(name)) return false;
  const std::optional<ForeignMatch> foreign = find_foreign_spelling(name, tool);
  return foreign && !foreign->key && foreign->spelling.inert_values == std::vector<std::string>{"*"};
}

// One `key: value` entry of a recipe file, not yet checked.
PendingValue file_entry(const YAML::Node& name_node, const YAML::Node& node, const std::string& path,
                        std::optional<ForeignTool> tool) {
  const std::string where = mark_text(path, name_node.Mark());
  // YAML allows any node as a key (`{[a, b]: 1}`, a fuzz finding); a recipe's keys are words.
  if (!name_node.IsScalar()) throw UserError(where + ": a key is a single word, not a list or mapping");
  PendingValue entry{name_node.Scalar(), {}, {where, tool}};
  RecipeValue& value = entry.value;
  // A null's mark is the next token's, a line below: the key's place names it instead.
  value.where = node.IsNull() ? where : mark_text(path, node.Mark());
  const RecipeKey* key = find_recipe_key(entry.name);
  if (takes_any_value(entry.name, tool) && !node.IsScalar() && !node.IsNull()) {
    value.text = node.IsMap() ? "{…}" : "[…]";
  } else if (node.IsSequence() && (key == nullptr || key->is_list)) {
    std::vector<std::string> items;
    for (const auto& item : node) {
      if (!item.IsScalar()) throw UserError(where + ": key '" + entry.name + "' expects a list of single values");
      items.push_back(trim(item.Scalar()));
    }
    value.text = join(items, ",");
    value.is_sequence = true;
  } else if (!node.IsScalar() && !node.IsNull()) {
    throw UserError(where + ": key '" + entry.name + "' expects a single value, not a list or mapping");
  } else if (node.IsNull()) {
    value.is_null = true;
  } else {
    // As YAML gives it: a plain scalar has no outer blanks, and a quoted one keeps its own
    // (EasyOCR's symbol: " !…" begins with a space, a character of the set).
    value.text = node.Scalar();
  }
  entry.is_default = means_default(entry);
  return entry;
}

// Whose file a recipe is (an Ultralytics args.yaml, an EasyOCR config), by its keys: their names
// are looked up in that tool's spellings first.
std::optional<ForeignTool> tool_of_file(const YAML::Node& root) {
  std::vector<std::string> names;
  for (const auto& entry : root) {
    if (entry.first.IsScalar()) names.push_back(entry.first.Scalar());
  }
  return tool_of_keys(names);
}

// `path` names the source in messages: a file, or "<checkpoint>:recipe" for embedded text.
void read_yaml(const std::string& text, const std::string& path, PendingValues& pending, LoadNotes& notes) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& error) {
    throw UserError(path + ":" + std::to_string(error.mark.line + 1) + ":" +
                    std::to_string(error.mark.column + 1) + ": invalid YAML: " + error.msg);
  }
  if (root.IsNull()) return;
  if (!root.IsMap()) throw UserError(path + ": a recipe is a mapping of key: value lines");
  const std::optional<ForeignTool> tool = tool_of_file(root);
  for (const auto& entry : root) {
    noting_problems(notes, [&] { merge(pending, file_entry(entry.first, entry.second, path, tool)); });
  }
}

void read_file(const std::string& path, PendingValues& pending, LoadNotes& notes) {
  std::ifstream in(path);
  if (!std::filesystem::is_regular_file(path) || !in) throw UserError("recipe file not found: " + path);
  std::stringstream text;
  text << in.rdbuf();
  read_yaml(text.str(), path, pending, notes);
}

// `key=value` is Ultralytics' form; `--key=value` is a timm flag (overrides_of_arguments keeps the
// dashes of timm's own spellings), said without them.
PendingValue override_entry(std::string argument) {
  const bool is_timm_flag = argument.rfind("--", 0) == 0;
  if (is_timm_flag) argument.erase(0, 2);
  const NameSource source{"override '" + argument + "'", is_timm_flag ? ForeignTool::timm : ForeignTool::ultralytics};
  const auto equals = argument.find('=');
  PendingValue entry{trim(argument.substr(0, equals)), {}, source};
  RecipeValue& value = entry.value;
  value.where = source.where;
  if (equals == std::string::npos) {
    const RecipeKey* key = find_recipe_key(entry.name);
    if (key && !key->is_bool) throw UserError(source.where + ": key '" + entry.name + "' needs a value (" + entry.name + "=…)");
    value.text = "true";
  } else {
    value.text = trim(argument.substr(equals + 1));
    // Ultralytics accepts None in any case; an empty value means the same.
    value.is_null = value.text.empty() || to_lower(value.text) == "none" || to_lower(value.text) == "null";
    // Ultralytics reads `imgsz=[640,480]` and `device=[0]` as Python lists.
    const RecipeKey* key = target_key(entry.name, source.tool);
    if (key && key->is_list && value.text.size() >= 2 && value.text.front() == '[' && value.text.back() == ']') {
      value.text = trim(value.text.substr(1, value.text.size() - 2));
      value.is_sequence = true;
    }
  }
  entry.is_default = means_default(entry);
  return entry;
}

void read_overrides(const std::vector<std::string>& overrides, PendingValues& pending, LoadNotes& notes) {
  for (const auto& argument : normalize_overrides(overrides)) {
    noting_problems(notes, [&] { merge(pending, override_entry(argument)); });
  }
}

// Every merged value is checked, so one run reports all of a file's and a command line's problems.
void apply_pending(Settings& settings, const PendingValues& pending, GivenKeys& given, LoadNotes& notes) {
  for (const PendingValue& entry : pending) {
    noting_problems(notes, [&] {
      // A default is checked as a name only: an unknown one is still an error.
      if (entry.is_default && (find_recipe_key(entry.name) || find_foreign_spelling(entry.name, entry.source.tool)))
        return;
      apply_value(settings, entry.name, entry.value, entry.source, given, notes);
    });
  }
}

// Ultralytics' `model=yolov8n.pt` names an architecture and the weights to start from in one
// value, `model=yolov8n.yaml` the architecture alone.
// model=yolov8s typed on the command line, as Ultralytics reads a bare name of its released models
// (check_model_file_from_stem, attempt_download_asset): yolov8s.pt from the working directory, else
// from the settings' weights_dir. Nothing is downloaded. With pretrained=PATH, and in a file, a
// bare name is the architecture (our args.yaml writes the architecture and its weights apart;
// Ultralytics would load PATH's weights over the released ones); other families' bare names (timm's
// resnet50, crnn) always are.
void find_released_weights(Settings& settings, const std::string& where,
                           const ModelCatalog& catalog) {
  const std::string name = settings.run.model;
  if (where.rfind("override '", 0) != 0 || name.find_first_of("./\\") != std::string::npos) return;
  if (!settings.run.pretrained.empty() && settings.run.pretrained != "false") return;
  const auto family = std::find_if(catalog.begin(), catalog.end(),
                                   [&](const ModelNames& names) { return names.answers_to(name); });
  if (family == catalog.end() || !family->bare_means_weights) return;
  const std::string file = name + ".pt";
  const std::filesystem::path weights_dir = load_user_settings().weights_dir;
  for (const std::filesystem::path& candidate : {std::filesystem::path(file), weights_dir / file}) {
    std::error_code error;
    if (std::filesystem::is_regular_file(candidate, error)) {
      settings.run.model = candidate.string();
      return;
    }
  }
  throw UserError(where + ": model=" + name + " names Ultralytics' released " + file +
                  ", as `yolo` reads a bare " +
                  "name, and it is neither in the working directory nor in weights_dir " +
                  weights_dir.string() + " (`trainer settings weights_dir=…`); put " + file +
                  " in one of them, or write model=" + name +
                  ".yaml to train the architecture from scratch (models are " +
                  model_families_text(catalog) + ")");
}

// timm's bare --pretrained with one of timm's architectures: its released weights
// from the local hub caches, or an error saying where to put them. Ultralytics' models take theirs
// from the model's .pt (pretrained: true is Ultralytics' default and asks for nothing more).
void find_hub_weights_of(Settings& settings, const std::string& where, const ModelCatalog& catalog) {
  const std::string& model = settings.run.model;
  const auto family = std::find_if(catalog.begin(), catalog.end(),
                                   [&](const ModelNames& names) { return names.answers_to(model); });
  if (family == catalog.end() || family->bare_means_weights || family->task != TaskKind::classify) return;
  const HubWeights weights = find_hub_weights(model);
  if (!weights.file) {
    throw UserError(where + ": pretrained=true (timm's bare --pretrained) asks for the released weights of " +
                    model + ", which are not downloaded here and are in none of: " + join(weights.looked, "; ") +
                    ". Put timm's model.safetensors (huggingface.co/timm/" + model +
                    (model.find('.') == std::string::npos ? ".TAG" : "") +
                    ") under the first, or give the file: --pretrained PATH");
  }
  spdlog::info("{}: pretrained=true: {}'s weights from {}", where, model, *weights.file);
  settings.run.pretrained = *weights.file;
}

std::string read_model_definition(const std::filesystem::path& file, const std::string& where) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) throw UserError(where + ": model=" + file.string() + ": cannot read the model definition");
  return text.str();
}

// model= naming a file: weights (their architecture by the stem, the file as pretrained=) or a
// model definition, whose text is read here once for the run. Returns true where the definition
// is the one `carried` holds: it is built from that text whether or not the file is still there
// (or changed), and the recipe's task stands.
bool split_model_file(Settings& settings, const GivenKeys& given, bool from_scratch, const ModelCatalog& catalog,
                      const CarriedDefinition& carried) {
  settings.run.model_definition.clear();
  const std::filesystem::path file(settings.run.model);
  const std::string extension = to_lower(file.extension().string());
  const bool is_weights = extension == ".pt" || extension == ".pth" || extension == ".safetensors";
  if (!is_weights && extension != ".yaml" && extension != ".yml") return false;
  if (!is_weights && !carried.text.empty() && (carried.model.empty() || settings.run.model == carried.model)) {
    settings.run.model_definition = carried.text;
    return true;
  }
  const std::string& where = given.at("model");
  // A model-definition file that exists is read as it is (Ultralytics looks beside the command
  // first); otherwise its stem names a built-in architecture (yolo11n.yaml: yolo11n).
  const bool definition_file = !is_weights && std::filesystem::is_regular_file(file);
  const std::string architecture = definition_file ? settings.run.model : file.stem().string();
  if (!task_of_model(catalog, architecture)) {
    throw UserError(where + ": model=" + settings.run.model + " names no architecture; give the architecture as model= (" +
                    model_families_text(catalog) + ") and the file as pretrained=");
  }
  if (definition_file) settings.run.model_definition = read_model_definition(file, where);
  if (is_weights && from_scratch) {
    spdlog::info("{}: model={} with pretrained=false: the architecture from scratch, the file unread", where,
                 settings.run.model);
  } else if (is_weights) {
    if (!settings.run.pretrained.empty() && settings.run.pretrained != settings.run.model) {
      throw UserError(where + ": model=" + settings.run.model + " names the weights to start from, and pretrained=" +
                      settings.run.pretrained + " (" + given.at("pretrained") + ") names others; keep one");
    }
    settings.run.pretrained = settings.run.model;
  }
  settings.run.model = architecture;
  return false;
}

// True where one of EasyOCR's keys that only text recognition reads was set away from its default
// (imgH, lang_char …): an EasyOCR config file names no task, and `trainer copy-cfg`'s file, which
// writes every key at its default, is no OCR recipe.
bool sets_easyocr_keys(const Settings& settings, const GivenKeys& given) {
  static const Settings defaults;
  const std::vector<std::string>& easyocr = tool_file_keys(ForeignTool::easyocr);
  return std::any_of(given.begin(), given.end(), [&](const auto& entry) {
    const RecipeKey* key = find_recipe_key(entry.first);
    return key && key->tasks == kOcr && std::find(easyocr.begin(), easyocr.end(), key->name) != easyocr.end() &&
           key->show(settings) != key->show(defaults);
  });
}

// A model implies its task and a task its usual model (Ultralytics' habit); with neither named,
// an Ultralytics data.yaml means detection and EasyOCR's keys text recognition. Named both, they
// must agree.
void resolve_model_and_task(Settings& settings, const GivenKeys& given, const ModelCatalog& catalog,
                            Dialect dialect, const CarriedDefinition& carried) {
  // Ultralytics' pretrained: false, kept as the word by its row, names no file.
  const bool from_scratch = settings.run.pretrained == "false";
  // pretrained: true is Ultralytics' default and asks for nothing; timm's bare --pretrained does.
  const bool released = settings.run.pretrained == "true" && dialect == Dialect::timm;
  if (from_scratch || settings.run.pretrained == "true") settings.run.pretrained.clear();
  const auto task_where = given.find("task");
  const auto model_where = given.find("model");
  if (model_where == given.end()) {
    if (task_where == given.end()) {
      const std::string extension = to_lower(std::filesystem::path(settings.run.data).extension().string());
      if (extension == ".yaml" || extension == ".yml") settings.run.task = TaskKind::detect;
      if (sets_easyocr_keys(settings, given)) settings.run.task = TaskKind::ocr;
    }
    // A timm command keeps train.py's --model default (dialect.h), which is a classifier.
    if (dialect != Dialect::timm || settings.run.task != TaskKind::classify)
      settings.run.model = default_model(catalog, settings.run.task);
    if (released) find_hub_weights_of(settings, given.at("pretrained"), catalog);
    return;
  }
  find_released_weights(settings, model_where->second, catalog);
  const bool carried_task = split_model_file(settings, given, from_scratch, catalog, carried);
  const std::optional<TaskKind> family =
      carried_task ? std::optional<TaskKind>(settings.run.task) : task_of_model(catalog, settings.run.model);
  if (!family) {
    throw UserError(model_where->second + ": unknown model '" + settings.run.model + "'; models are " +
                    model_families_text(catalog));
  }
  if (task_where != given.end() && *family != settings.run.task) {
    throw UserError(model_where->second + ": model '" + settings.run.model + "' trains task=" + to_string(*family) +
                    ", but task=" + to_string(settings.run.task) + " (" + task_where->second +
                    "); drop task or make them agree");
  }
  settings.run.task = *family;
  if (released && settings.run.pretrained.empty()) find_hub_weights_of(settings, given.at("pretrained"), catalog);
}

// Checks that involve more than one key, after every source has been applied.
void validate(const Settings& settings) {
  if (!settings.ocr.batch_ratio.empty() && settings.ocr.batch_ratio.size() != settings.ocr.select_data.size()) {
    throw UserError("key 'batch_ratio' has " + std::to_string(settings.ocr.batch_ratio.size()) +
                    " value(s) but 'select_data' names " + std::to_string(settings.ocr.select_data.size()) + " folder(s)");
  }
  if (settings.ocr.transformation == OcrTransformation::tps && settings.ocr.num_fiducial % 2 != 0) {
    throw UserError(
        "key 'num_fiducial' must be even with Transformation TPS (half of the points on the line's "
        "top "
        "edge, half on its bottom), got " +
        std::to_string(settings.ocr.num_fiducial));
  }
  if (settings.schedule.time.value_or(0) > 0 && settings.schedule.updates > 0) {
    throw UserError("keys 'time' and 'updates' both set the training length; give one");
  }
  if (settings.schedule.time.value_or(0) > 0 && settings.schedule.cooldown_epochs > 0) {
    throw UserError("key 'time' recomputes the epochs from a wall-clock budget; cooldown_epochs would run past it");
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

// The keys whose value came from the command line: its places are "override '…'".
std::vector<std::string> names_set_by_command_line(const GivenKeys& given) {
  std::vector<std::string> names;
  for (const auto& [name, where] : given) {
    if (where.rfind("override '", 0) == 0) names.push_back(name);
  }
  return names;
}

// device=0,1 trains one rank per listed GPU, as `yolo` starts DDP over them: nproc is their count.
void ranks_of_device_list(Settings& settings, const GivenKeys& given) {
  const auto listed = static_cast<int64_t>(device_list(settings.run.device).size());
  if (listed == 0) return;
  const auto nproc = given.find("nproc");
  if (nproc != given.end() && settings.dist.nproc != listed) {
    throw UserError(nproc->second + ": nproc=" + std::to_string(settings.dist.nproc) +
                    ", but device=" + settings.run.device + " (" + given.at("device") +
                    ") starts " + std::to_string(listed) +
                    " ranks, one per listed GPU; drop nproc");
  }
  settings.dist.nproc = listed;
}

// The model name, the task and the checks across keys join the problems of single values, so one
// run reports them all (an unknown model is not left for after every other problem is fixed).
void check_whole(Settings& settings, const GivenKeys& given, const ModelCatalog& catalog, LoadNotes& notes,
                 Dialect dialect, const CarriedDefinition& carried) {
  // No project (or none, Ultralytics' null): runs go to runs_dir/<task> (io/run_folder.h).
  if (!given.count("project")) settings.output.project.clear();
  noting_problems(notes, [&] { resolve_model_and_task(settings, given, catalog, dialect, carried); });
  noting_problems(notes, [&] { ranks_of_device_list(settings, given); });
  noting_problems(notes, [&] { validate(settings); });
  report(notes);
}

}  // namespace

Settings load_settings(const std::optional<std::string>& config_path, const std::vector<std::string>& overrides,
                       const ModelCatalog& catalog, Dialect dialect, const CarriedDefinition& carried) {
  spdlog::info("{}", dialect_line(dialect));
  Settings settings = dialect_defaults(dialect);
  GivenKeys given;
  LoadNotes notes;
  PendingValues pending;
  if (config_path) noting_problems(notes, [&] { read_file(*config_path, pending, notes); });
  read_overrides(overrides, pending, notes);
  apply_pending(settings, pending, given, notes);
  finish_dialect(dialect, settings, names_of(given));
  check_whole(settings, given, catalog, notes, dialect, carried);
  warn_keys_without_effect(settings, names_of(given));
  return settings;
}

Settings load_settings_from_yaml(const std::string& yaml, const std::string& origin,
                                 const std::vector<std::string>& overrides, const ModelCatalog& catalog,
                                 const CarriedDefinition& carried) {
  Settings settings;
  GivenKeys given;
  LoadNotes notes;
  PendingValues pending;
  noting_problems(notes, [&] { read_yaml(yaml, origin, pending, notes); });
  read_overrides(overrides, pending, notes);
  apply_pending(settings, pending, given, notes);
  check_whole(settings, given, catalog, notes, Dialect::ultralytics, carried);
  // The embedded recipe was checked when it was written: only what this command changes warns.
  warn_keys_without_effect(settings, names_set_by_command_line(given));
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
