// Keys that users of Ultralytics' `yolo train` and timm's train.py type by habit and that have
// no counterpart among our keys, with why: an unknown-key error that knows them says so instead
// of guessing by spelling. Spellings of keys we do have live in their rows of the key table.
#pragma once
#include <vector>

#include "config/recipe_keys.h"

namespace trainer {

const std::vector<ForeignSpelling>& keys_without_counterpart();

}  // namespace trainer
