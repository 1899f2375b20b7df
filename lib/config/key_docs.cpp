#include "config/key_docs.h"

#include <yaml-cpp/yaml.h>

#include <sstream>

#include "config/recipe_keys.h"

namespace trainer {
namespace {

constexpr KeySection kSections[] = {
    KeySection::run,  KeySection::schedule, KeySection::data,     KeySection::optim,  KeySection::execution,
    KeySection::dist, KeySection::output,   KeySection::classify, KeySection::detect, KeySection::ocr};

constexpr const char* kIntroduction = R"(# Recipe keys

<!-- Generated from the key table (lib/config/recipe_keys.cpp) by `trainer keys --markdown`;
     a test fails when this file is stale. Edit the table, not this file. -->

A recipe is a flat YAML mapping (`key: value` per line). The same keys are accepted on the
command line as `key=value` (Ultralytics' rules: `true`/`false`/`none` in any case, spaces around
`=` tolerated, a bare boolean key such as `exist_ok` means `true`). Every key is checked once
when the recipe is read; an unknown key, a wrong type or an out-of-range value stops the command
before anything starts, naming the key and `file:line:column` or the override.
`trainer keys` prints the resolved value of every key; the run folder's `args.yaml` holds the
resolved recipe of a run and loads back as a recipe.

A key set away from its default that changes nothing for the run's task (its *tasks* column)
gets one warning naming the key and the task. When a run resumes (`resume=`), only the keys
marked *may change* may differ from the checkpoint's recipe (others need `resume_force`).
A key that Ultralytics, timm or EasyOCR users type by habit is listed at the end with what it
is here. `task` and `model` imply each other: a recipe that names only the model trains that
model's task, one that names only the task trains its usual model (resnet18, crnn, yolov8n),
and one that names neither but gives a `data.yaml` trains YOLOv8n detection. Named both, they
must agree.
)";

std::string default_of(const RecipeKey& key) {
  static const Settings defaults;
  return key.default_text.empty() ? "`" + key.show(defaults) + "`" : key.default_text;
}

void write_section(std::ostringstream& out, KeySection section) {
  out << "\n## " << section_title(section) << "\n\n"
      << "| key | default | values | tasks | on resume | meaning |\n|---|---|---|---|---|---|\n";
  for (const RecipeKey& key : recipe_keys()) {
    if (key.section != section) continue;
    out << "| `" << key.name << "` | " << markdown_cell(default_of(key)) << " | " << markdown_cell(key.values) << " | "
        << tasks_text(key.tasks) << " | " << (key.resumable ? "may change" : "") << " | " << markdown_cell(key.help)
        << " |\n";
  }
}

void write_foreign_spellings(std::ostringstream& out) {
  out << "\n## Other tools' spellings\n\n"
      << "Accepted spellings are taken as our key with an info line; refused ones stop the command with the "
         "reason.\n\n| spelling | tool | here | |\n|---|---|---|---|\n";
  for (const auto& [key, spelling] : foreign_spellings()) {
    const bool same = spelling.meaning == ForeignMeaning::same;
    out << "| `" << spelling.name << "` | " << tool_name(spelling.tool) << " | "
        << (key.empty() ? std::string("no counterpart") : "`" + key + "`") << " | " << (same ? "accepted" : "refused")
        << (spelling.note.empty() ? "" : ": " + markdown_cell(spelling.note)) << " |\n";
  }
}

}  // namespace

std::string markdown_cell(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '|') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

std::string recipe_keys_markdown() {
  std::ostringstream out;
  out << kIntroduction;
  for (KeySection section : kSections) write_section(out, section);
  write_foreign_spellings(out);
  return out.str();
}

std::string default_recipe_yaml() {
  static const Settings defaults;
  std::ostringstream out;
  out << "# trainer's default recipe: every key at its default, with its help line (docs/recipe-keys.md).\n"
         "# Edit it and train with: trainer train cfg=default_copy.yaml (or --config default_copy.yaml)\n";
  for (KeySection section : kSections) {
    out << "\n# " << section_title(section) << "\n";
    for (const RecipeKey& key : recipe_keys()) {
      if (key.section != section) continue;
      YAML::Emitter value;
      value << key.show(defaults);
      // A default that follows other keys (the model's task, the task's model) stays unset.
      const std::string line = key.name + ": " + value.c_str();
      out << "# " << key.help << "\n"
          << (key.default_text.empty() ? line : "# " + line + "  # default: " + key.default_text) << "\n";
    }
  }
  return out.str();
}

std::string recipe_keys_help() {
  static const Settings defaults;
  std::ostringstream out;
  out << "Recipe keys (key=value after the options; docs/recipe-keys.md has the values and tasks of each):\n";
  for (KeySection section : kSections) {
    out << "\n" << section_title(section) << ":\n";
    for (const RecipeKey& key : recipe_keys()) {
      if (key.section != section) continue;
      out << "  " << key.name << " = " << key.show(defaults) << "\n      " << key.help << "\n";
    }
  }
  return out.str();
}

}  // namespace trainer
