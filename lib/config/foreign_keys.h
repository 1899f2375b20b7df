// The rows of other tools' keys that have no counterpart here: keys that users of Ultralytics'
// `yolo train`, EasyOCR's trainer and timm's train.py type by habit, each (tool, name) refused
// with why, or ignored at the values that ask for nothing. An unknown-key error that knows them
// says so instead of guessing by spelling. Spellings of keys we do have are on their rows of the
// key table (config/recipe_keys.cpp); find_foreign_spelling looks up both.
#pragma once
#include <string>
#include <vector>

#include "config/recipe_keys.h"

namespace trainer {

// Ultralytics' rows, then EasyOCR's, then timm's.
const std::vector<ForeignSpelling>& keys_without_counterpart();

// Every key of the tool's own recipe files or flags, in their order, the order of its docs page:
// Ultralytics' default.yaml of the 8.0 to 8.4 releases and its runs' args.yaml; EasyOCR's trainer
// options (trainer/config_files/*.yaml, train.py); timm's train.py flags (config/timm_flags.cpp).
// What each is here comes from the rows (docs/ultralytics.md, docs/easyocr.md, docs/timm.md).
const std::vector<std::string>& tool_file_keys(ForeignTool tool);

}  // namespace trainer
