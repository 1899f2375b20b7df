// The two command forms a recipe command is written in, decided once per command from its
// spellings (config/command_arguments.h): Ultralytics' `key=value` (and our recipes), whose
// defaults are the key table's, and timm's train.py flags, whose defaults are train.py's.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "config/settings.h"

namespace trainer {

enum class Dialect { ultralytics, timm };

// timm train.py's default of each key it has one for, as the text of our keys' values, in the
// order docs/timm.md lists them.
const std::vector<std::pair<std::string, std::string>>& timm_defaults();

// The settings a command of the dialect starts from, before its recipe file and keys.
Settings dialect_defaults(Dialect dialect);

// What the dialect derives from the keys once they are all read (`given`: the keys the command
// set): timm's lr rule takes sqrt scaling for the Adam family (its --lr-base-scale's empty default)
// unless lr_scale was given, and RMSpropTF its own eps 1e-10 (--opt-eps's None) unless eps was.
void finish_dialect(Dialect dialect, Settings& settings, const std::vector<std::string>& given);

// The one info line that says which dialect the command was read in, and what that means.
std::string dialect_line(Dialect dialect);

}  // namespace trainer
