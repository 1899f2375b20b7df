// The recipe overrides of a command line, in the spellings users bring: Ultralytics' `key=value`
// (spaces around `=` and a trailing comma tolerated) and timm's train.py flags, `--key value`,
// `--key=value`, `-b N` (batch size) and `-j N` (workers), a flag's dashes being underscores, and
// timm's positional data folder; and the dialect the command is written in.
#pragma once
#include <string>
#include <vector>

#include "config/dialect.h"

namespace trainer {

struct CommandOverrides {
  // Each override as `key=value`, or a bare `key` where a flag had no value (a boolean's true); a
  // flag that is one of timm's own spellings keeps its dashes (`--batch_size=8`), so that the
  // recipe reads it as timm's (config/recipe.h). A flag takes one value, a list key's flag
  // (`--input-size 3 224 224`, `--decay-milestones 30 60`) every value up to the next flag,
  // comma-separated; a switch's flag (--amp, --pretrained) takes the next word unless it names a
  // folder (timm's data), a flag without a key none that is a folder. A bare word that names a
  // folder or path is timm's positional data folder
  // (`--data_dir=PATH`). Arguments of no known form pass unchanged, so the key table names them in
  // its error.
  std::vector<std::string> overrides;
  // timm's when the keys are set by flags (or the bare data folder) only; any `key=value` (a TASK
  // word arrives as task=TASK) makes it Ultralytics', as does a command that sets no key.
  Dialect dialect = Dialect::ultralytics;
};

CommandOverrides read_command_arguments(const std::vector<std::string>& arguments);

// read_command_arguments' overrides alone.
std::vector<std::string> overrides_of_arguments(const std::vector<std::string>& arguments);

}  // namespace trainer
