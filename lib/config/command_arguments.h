// The recipe overrides of a command line, in the spellings users bring: Ultralytics' `key=value`
// (spaces around `=` and a trailing comma tolerated) and timm's train.py flags, `--key value`,
// `--key=value`, `-b N` (batch size) and `-j N` (workers), a flag's dashes being underscores.
#pragma once
#include <string>
#include <vector>

namespace trainer {

// Each override as `key=value`, or a bare `key` where a flag had no value (a boolean's true); a
// flag that is one of timm's own spellings keeps its dashes (`--batch_size=8`), so that the recipe
// reads it as timm's (config/recipe.h). A flag followed by several values (`--input-size 3 224
// 224`) gets them comma-separated, a list.
// Arguments of no known form pass unchanged, so the key table names them in its error.
std::vector<std::string> overrides_of_arguments(const std::vector<std::string>& arguments);

}  // namespace trainer
