// The recipe key table: the one declaration of every key. A row says how the key is parsed and
// printed, its accepted values, its one-line help, the tasks it changes anything for, whether it
// may change when a run resumes, and the spellings other tools (Ultralytics, timm, EasyOCR) use
// for it; other tools' keys with no counterpart here are the rows of config/foreign_keys.cpp.
// Parsing, `trainer keys`, `trainer train --help`, docs/recipe-keys.md and the tools' pages, the
// resume check, the no-op warnings and the did-you-mean and foreign-spelling hints all read this
// table. The typed field and its default live in config/settings.h.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "config/settings.h"

namespace trainer {

// One value as written by the user, with where it was written for error messages.
struct RecipeValue {
  std::string text;   // scalar text, already trimmed; a YAML sequence arrives joined by commas
  bool is_null = false;
  std::string where;  // "configs/demo.yaml:4:8" or "override 'batch=abc'"
  bool is_sequence = false;  // a YAML sequence: its items are split at the commas only
};

// The tasks a key changes anything for, one bit per TaskKind.
using TaskMask = unsigned;
inline constexpr TaskMask kClassify = 1u << static_cast<unsigned>(TaskKind::classify);
inline constexpr TaskMask kOcr = 1u << static_cast<unsigned>(TaskKind::ocr);
inline constexpr TaskMask kDetect = 1u << static_cast<unsigned>(TaskKind::detect);
inline constexpr TaskMask kAllTasks = kClassify | kOcr | kDetect;
inline bool applies_to(TaskMask tasks, TaskKind task) { return (tasks >> static_cast<unsigned>(task)) & 1u; }
// "classify and detect", for messages and docs.
std::string tasks_text(TaskMask tasks);

// The table's sections: each is the Settings section (config/settings.h) of the same name.
enum class KeySection { run, data, schedule, optim, execution, dist, output, classify, detect, ocr };
const char* section_title(KeySection section);

enum class ForeignTool { ultralytics, timm, easyocr };
const char* tool_name(ForeignTool tool);

// What another tool's name is here. Every spelling is a (tool, name, meaning) on a row: the key
// row it belongs to, or a row of the table of keys without counterpart (config/foreign_keys.cpp).
enum class ForeignMeaning {
  same,       // ours under another name: accepted as our key, with an info line naming it
  different,  // refused with the reason, except at its inert values, which are ignored
  ours,       // the tool spells our key as we do: ours is read; the note says what differs (docs only)
};

struct ForeignSpelling {
  std::string name;  // as that tool spells it, dashes as underscores (timm's --clip-grad is clip_grad)
  ForeignTool tool = ForeignTool::ultralytics;
  ForeignMeaning meaning = ForeignMeaning::different;
  std::string note;  // the reason it is refused, or what differs in detail where it is accepted
  // Values at which a refused spelling is accepted all the same, because they ask for nothing
  // (Ultralytics' `save: True`, `cos_lr: False`): lower case, "" for an empty value or none, "*"
  // for any value. Keys taken this way are listed in one info line.
  std::vector<std::string> inert_values;
  // How an accepted spelling sets our key, where its values are not our key's (EasyOCR's
  // freeze_FeatureFxtraction: True adds FeatureExtraction to freeze); empty: our key's own parser.
  std::function<void(Settings&, const RecipeValue&)> assign;
  // The mode or task of the tool that alone reads the key (Ultralytics' predict, export, pose …):
  // everywhere else the tool ignores it, and so is it here at any value, named in one info line.
  std::string read_by;
};

struct RecipeKey {
  std::string name;
  KeySection section = KeySection::run;
  TaskMask tasks = kAllTasks;
  bool resumable = false;    // may change when a run resumes (resume=…) without resume_force
  bool is_bool = false;      // a bare `key` on the command line means key=true
  bool is_list = false;      // takes a YAML sequence, or comma-separated items in one value
  bool is_path = false;      // may name a file or folder, relative to the working directory the run started in
  bool takes_empty = false;  // '' is a value of its own (EasyOCR's symbol: ''); for other keys '' is the default
  std::vector<std::string> path_exceptions;  // values of a path key that are names, never paths (fashion-mnist)
  std::string values;        // the accepted values as help and docs print them ("≥ 1", "auto, sgd, adamw")
  std::string default_text;  // the default as docs print it, where the printed default value does not say it
  std::string help;          // one line
  std::vector<ForeignSpelling> foreign;
  std::function<void(Settings&, const RecipeValue&)> assign;
  std::function<std::string(const Settings&)> show;
};

const std::vector<RecipeKey>& recipe_keys();
const RecipeKey* find_recipe_key(const std::string& name);
std::vector<std::string> recipe_key_names();

// A key another tool spells `name`, with the row it belongs to (nullptr: no key of ours has that
// meaning). Spellings of the kind `ours` are our keys' names and are never returned.
struct ForeignMatch {
  const RecipeKey* key = nullptr;
  ForeignSpelling spelling;
};
// `tool`'s own spelling `name`; nullopt when that tool has none.
std::optional<ForeignMatch> find_spelling_of(ForeignTool tool, const std::string& name);
// The spelling `name` as read from `source`, the tool whose file or flags are being read: that
// tool's own where it has one, otherwise (and where the source is not known: a recipe of ours) the
// first of any tool in table order, key rows before the keys without counterpart; nullopt when no
// tool spells `name`.
std::optional<ForeignMatch> find_foreign_spelling(const std::string& name,
                                                  std::optional<ForeignTool> source = std::nullopt);
// The tool whose spellings most of `names` (a recipe file's keys) are, where one tool leads: an
// Ultralytics args.yaml, an EasyOCR config; nullopt for a recipe of ours or a tie.
std::optional<ForeignTool> tool_of_keys(const std::vector<std::string>& names);
// Every other tool's spelling that is not one of our keys' names, with the key it belongs to (""
// where none of ours has its meaning): Ultralytics' and EasyOCR's spellings on key rows in table
// order, then their keys without counterpart, then timm's in the order of its train.py flags.
std::vector<std::pair<std::string, ForeignSpelling>> foreign_spellings();

}  // namespace trainer
