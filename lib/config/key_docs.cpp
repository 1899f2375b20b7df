#include "config/key_docs.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <sstream>

#include "config/dialect.h"
#include "config/foreign_keys.h"
#include "config/recipe_keys.h"
#include "util/text.h"

namespace trainer {
namespace {

// Every key at the default a recipe resolves to: without project= a run goes to runs_dir/<task>
// (project none, Ultralytics' null), the recipe loader's reading of an absent project.
const Settings& recipe_defaults() {
  static const Settings defaults = [] {
    Settings settings;
    settings.output.project.clear();
    return settings;
  }();
  return defaults;
}

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
  const Settings& defaults = recipe_defaults();
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

// "accepted", or "ignored at `False`, `none`; otherwise refused", or "refused".
std::string outcome(const ForeignSpelling& spelling) {
  if (spelling.meaning == ForeignMeaning::same) return "accepted";
  if (spelling.inert_values.empty()) return "refused";
  if (!spelling.read_by.empty()) {
    const std::string tool = tool_name(spelling.tool);
    return "ignored at any value (read only by " + tool + (tool.back() == 's' ? "' " : "'s ") + spelling.read_by + ")";
  }
  if (spelling.inert_values == std::vector<std::string>{"*"}) return "ignored (any value)";
  std::vector<std::string> values;
  for (const auto& value : spelling.inert_values) values.push_back("`" + (value.empty() ? "none" : value) + "`");
  return "ignored at " + join(values, ", ") + "; refused otherwise";
}

void write_foreign_spellings(std::ostringstream& out) {
  out << "\n## Other tools' spellings\n\n"
      << "Accepted spellings are taken as our key with an info line; refused ones stop the command with the "
         "reason.\n\n| spelling | tool | here | |\n|---|---|---|---|\n";
  for (const auto& [key, spelling] : foreign_spellings()) {
    out << "| `" << spelling.name << "` | " << tool_name(spelling.tool) << " | "
        << (key.empty() ? std::string("no counterpart") : "`" + key + "`") << " | " << outcome(spelling)
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
  const Settings& defaults = recipe_defaults();
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

namespace {

constexpr const char* kUltralyticsIntroduction = R"(# Coming from Ultralytics

<!-- Generated from the key table (lib/config/recipe_keys.cpp, lib/config/foreign_keys.cpp) by
     `trainer keys --markdown --from ultralytics`; a test fails when this file is stale. -->

Ultralytics' own recipe files load as they are: `trainer train --config default.yaml` with the
`default.yaml` of any release from 8.0 to 8.4, or with the `args.yaml` of an Ultralytics run,
and the same keys as `key=value` overrides. As in Ultralytics, the file and the command line are
merged first and checked after, so a file's value that the command line replaces is never read;
an empty value (`project: ''`, `device:`) means the key's default; values are converted as
Ultralytics' checks convert them (`dropout: false` is 0, `patience: 0` never stops early,
`save_period: 0` is off, `imgsz: [1920, 1080]` trains at 1920, `device: [7]` is `cuda:7`,
`device: -1` the first GPU, `freeze: [0, 1]` the layers model.0 and model.1). Every key of
those files is listed below with what it is here: the same key; another key of ours; a key
that only another mode or task of Ultralytics reads (export's `opset`, predict's `source`,
pose's `kobj`), **ignored** at any value as Ultralytics' training ignores it, all named in one
info line; or a key that would change the run in a way not done here, **ignored** at the values
that ask for nothing (listed) and **refused** with the reason at any other value. All problems
of a file are reported in one run, each with `file:line:column`.
`pretrained: true` starts from the `.pt` given as `model` and `pretrained: false` trains that
architecture from scratch; any other value is a weights file.
)";

// The command forms of Ultralytics' documentation (usage/cli, modes/*, tasks/detect), after its keys.
constexpr const char* kUltralyticsCommands = R"(
## Command forms

Ultralytics' commands work with `yolo` replaced by `trainer`; `scripts/ultralytics-compat` runs
the train, val, predict and export forms of Ultralytics' documentation on a tiny coco8-layout set
and prints how many ran as typed.

| Ultralytics | here |
|---|---|
| `yolo TASK MODE key=value …`, `yolo MODE key=value …` | the same, and `trainer MODE TASK …`; TASK is `detect`, `classify` or `ocr` (`segment`, `pose`, `obb`: refused with the list of tasks); MODE is `train`, `val`, `predict` or `export` (and our `plan`, `smoke`, `keys` …). Spaces around `=`, a trailing comma and `key=None` are read as Ultralytics reads them; every usage error exits 2 |
| `yolo cfg=FILE …` | `trainer train --config FILE`, which `cfg=FILE` also means |
| `yolo train data=coco8.yaml model=yolov8n.yaml` | trains YOLOv8n from scratch on the data.yaml; a relative `path:` in it is tried from the working directory, the YAML's folder and `datasets_dir`. Nothing is downloaded: with the data missing, the error says where they must go |
| `yolo train model=yolov8s` | as Ultralytics reads a bare released name: `yolov8s.pt` from the working directory, else from the settings' `weights_dir`, loaded as `model=yolov8s.pt`; with neither, exit 2 saying where to put the file, or to write `model=yolov8s.yaml` for the architecture from scratch (nothing is downloaded). Only on the command line: in a recipe file (our args.yaml) a bare `model: yolov8s` is the architecture, its weights in `pretrained:` |
| `yolo train model=yolov8n.pt`, `pretrained=yolov8n.pt` | Ultralytics' own `.pt` files (released weights, an Ultralytics run's best.pt and last.pt) are read without running any code from them: the scale, class count and names come from the file |
| `yolo train resume model=path/to/last.pt` | `resume=path/to/last.pt`; from any working directory (run from inside `weights/`, the recipe's relative paths are found from where the run started) |
| `yolo val model=best.pt [data=other.yaml]` | validates; without `data=` it takes the checkpoint's own data (an Ultralytics file's `train_args`); another data set must have the same class names |
| `yolo predict model=best.pt source=…` | files, folders and globs; our checkpoints carry their class names and preprocessing, so the training data need not be there. A URL is refused (no network access); without `source=` predict is refused, where Ultralytics falls back to the sample photos it ships |
| `yolo export model=best.pt format=onnx` | ONNX (docs/export.md), `pt` and `safetensors`; other formats are refused naming those three |
| `yolo help`, `yolo version`, `yolo checks`, `yolo copy-cfg` | the same commands; `copy-cfg` writes our full default recipe, every key with its help line, to `default_copy.yaml` |
| `yolo settings`, `yolo settings key=value`, `yolo settings reset` | the same, for `datasets_dir`, `runs_dir` and `weights_dir`, kept in `$XDG_CONFIG_HOME/trainer/settings.yaml` |
)";

constexpr const char* kEasyOcrIntroduction = R"(# Coming from EasyOCR

<!-- Generated from the key table (lib/config/recipe_keys.cpp, lib/config/foreign_keys.cpp) by
     `trainer keys --markdown --from easyocr`; a test fails when this file is stale. -->

EasyOCR's trainer config files (`trainer/config_files/*.yaml`, the options of its `train.py`)
load as recipes: `trainer train --config en_filtered_config.yaml`. A file with EasyOCR's keys
and no `task` trains text recognition (`task=ocr`, `model=crnn`: EasyOCR's recognizer of the file's
`Transformation`, `FeatureExtraction`, `SequenceModeling` and `Prediction`, with its parameter
names, so saved models load both ways; ONNX export takes VGG, RCNN or ResNet with CTC, and refuses
TPS and Attn naming the stage).
Data come in EasyOCR's folders, each with images and a `labels.csv`, under its two roots:
`train_data` holds the training folders, of which `select_data` picks some (`'MJ-ST'`:
EasyOCR's `-`-separated lists are read, as are `batch_ratio: '0.5-0.5'`; a `select_data` that
names the `train_data` folder itself selects every folder under it, as EasyOCR's substring match
does), and every folder under `valid_data` is validated; symlinked folders are followed. The
character set is `number + symbol + lang_char` as written, a repeated character included, as
EasyOCR's trainer and CTCLabelConverter count it (the repeat is a class of its own, so a saved
model's Prediction layer keeps its size). An empty `experiment_name` is the default run name. Our own layout, `data=ROOT`
with `ROOT/train` and `ROOT/val`, is what the two roots default to. `lang_char: 'None'` takes the characters of the labels, as EasyOCR does. Labels
dropped for characters outside the set are counted in a warning with two examples, and past
`max_bad_fraction` of a split they stop the run. A `labels.csv` line longer than 64 KiB (a binary
or unbroken file, not a label) is refused naming its line. Every EasyOCR key is listed below with what it
is here: the same key; another key of ours; or a key with no meaning here, **ignored** at the
values listed (they ask for nothing, and the ignored keys are named in one info line) and
**refused** with the reason otherwise.
)";

constexpr const char* kTimmIntroduction = R"(# Coming from timm

<!-- Generated from the key table's timm spellings (lib/config/timm_flags.cpp) by
     `trainer keys --markdown --from timm`; a test fails when this file is stale. -->

timm's `train.py` flags work on `trainer train` (and the other recipe commands): `--key value`,
`--key=value` and `key=value` are the same override, a flag's dashes are underscores
(`--warmup-epochs 2` is `warmup_epochs=2`), `-b N` is `--batch-size N` and `-j N` is
`--workers N`. Every recipe key of docs/recipe-keys.md can be given this way. A flag with no
value is a boolean's `true` (`--model-ema`); one followed by several values gets them as a list.
The same names work in a recipe file.

The data folder is timm's ImageFolder layout: `train/<class>/` and `validation/<class>/` (or
`val/<class>/`), given as `--data-dir DIR` or bare, as train.py's positional argument
(`trainer train /data/imagenet --model resnet50`). The launcher is not needed:
`./distributed_train.sh 2 /imagenet …` is `trainer train --nproc 2 /imagenet …`.

A command written in timm's form, flags only, is read in timm's dialect: every key it does not
set takes timm train.py's default (the table below), said in one info line; one `key=value`
makes it an Ultralytics-form command with the key table's defaults (docs/usage.md, "Dialects").
`trainer plan` prints the resolved recipe. A flag whose meaning is ours is taken with an info
line saying which key it set; one whose meaning differs, or that asks for something not offered,
stops the command with the reason, and all such problems of one command are listed in one run.
Bare `--pretrained` reads timm's released weights of the model from the local Hugging Face hub
cache (`$HF_HUB_CACHE`, else `$HF_HOME/hub`, else `~/.cache/huggingface/hub`:
`models--timm--NAME.TAG/snapshots/*/model.safetensors` or `pytorch_model.bin`), else torchvision's
`NAME-*.pth` in torch hub's `$TORCH_HOME/hub/checkpoints` (`~/.cache/torch/hub/checkpoints`);
nothing is downloaded, and a missing file is an error naming those places. A tagged name
(`--model resnet50.a1_in1k`) reads that tag's repository; an untagged one timm's default tag of
the architecture (`a1_in1k` for resnet18/34/50, `a1h_in1k` for resnet101/152), as timm's
`create_model(NAME, pretrained=True)` does.
)";

// docs/timm.md: the defaults of timm's dialect, as train.py's flags give them.
void write_timm_defaults(std::ostringstream& out) {
  out << "\n## timm's defaults\n\nWhat a timm-form command starts from, in our keys (train.py's `--lr-base 0.1` "
         "is lr0 with lr_scale linear over lr_base_batch 256, sqrt for the Adam family; `--lr` sets lr0 with "
         "lr_scale none):\n\n| key | timm's default |\n|---|---|\n";
  for (const auto& [name, value] : timm_defaults()) out << "| `" << name << "` | " << value << " |\n";
}

// What `name`, a key of the tool's files, is here.
std::string key_outcome(ForeignTool tool, const std::string& name) {
  if (const RecipeKey* key = find_recipe_key(name)) return "the same key: " + key->help;
  const std::optional<ForeignMatch> match = find_foreign_spelling(name, tool);
  if (!match) return "unknown";
  const ForeignSpelling& spelling = match->spelling;
  std::string text = outcome(spelling);
  if (match->key && spelling.meaning == ForeignMeaning::same) text += ": `" + match->key->name + "` here";
  return text + (spelling.note.empty() ? "" : ": " + spelling.note);
}

// timm's --flag-name for flag_name.
std::string flag(const std::string& name) {
  std::string spelled = "--" + name;
  std::replace(spelled.begin(), spelled.end(), '_', '-');
  return "`" + spelled + "`";
}

// The row of our key `name` saying that `tool` spells it alike, if it does.
const ForeignSpelling* same_name_spelling(ForeignTool tool, const std::string& name) {
  const RecipeKey* key = find_recipe_key(name);
  if (!key) return nullptr;
  for (const ForeignSpelling& spelling : key->foreign) {
    if (spelling.tool == tool && spelling.meaning == ForeignMeaning::ours) return &spelling;
  }
  return nullptr;
}

// docs/timm.md: timm's flags in train.py's order, those with a spelling of their own, then those
// named like our keys.
void write_timm_flags(std::ostringstream& out) {
  out << "\n## timm's flags with a spelling of their own\n\n| timm | here | |\n|---|---|---|\n";
  for (const std::string& name : tool_file_keys(ForeignTool::timm)) {
    const std::optional<ForeignMatch> match = find_spelling_of(ForeignTool::timm, name);
    if (!match) continue;
    const ForeignSpelling& spelling = match->spelling;
    out << "| " << flag(name) << " | " << (match->key ? "`" + match->key->name + "`" : std::string("no counterpart"))
        << " | " << outcome(spelling) << (spelling.note.empty() ? "" : ": " + markdown_cell(spelling.note)) << " |\n";
  }
  out << "\n## timm's flags that are our keys\n\n| timm | note |\n|---|---|\n";
  for (const std::string& name : tool_file_keys(ForeignTool::timm)) {
    const ForeignSpelling* alike = same_name_spelling(ForeignTool::timm, name);
    if (!alike) continue;
    out << "| " << flag(name) << " | " << (alike->note.empty() ? "the same meaning" : markdown_cell(alike->note))
        << " |\n";
  }
  out << "\nThe tables hold every flag of train.py as of timm 1.0.29 (and the older --native-amp, --apex-amp "
         "and --jsd); any other is an unknown key here, with a did-you-mean where one of our keys is a likely "
         "typo.\n";
}

}  // namespace

std::string tool_keys_markdown(ForeignTool tool) {
  std::ostringstream out;
  if (tool == ForeignTool::timm) {
    out << kTimmIntroduction;
    write_timm_defaults(out);
    write_timm_flags(out);
    return out.str();
  }
  out << (tool == ForeignTool::easyocr ? kEasyOcrIntroduction : kUltralyticsIntroduction) << "\n| " << tool_name(tool)
      << " key | here |\n|---|---|\n";
  for (const std::string& name : tool_file_keys(tool))
    out << "| `" << name << "` | " << markdown_cell(key_outcome(tool, name)) << " |\n";
  if (tool == ForeignTool::ultralytics) out << kUltralyticsCommands;
  return out.str();
}

std::string recipe_keys_help() {
  const Settings& defaults = recipe_defaults();
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
