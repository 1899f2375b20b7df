// Keys that users of Ultralytics' `yolo train` and timm's train.py type by habit and that have
// no counterpart among our keys, with why: an unknown-key error that knows them says so instead
// of guessing by spelling. Spellings of keys we do have live in their rows of the key table.
#pragma once
#include <string>
#include <vector>

#include "config/recipe_keys.h"

namespace trainer {

const std::vector<ForeignSpelling>& keys_without_counterpart();

// Every key of the tool's own recipe files, in their order: Ultralytics' default.yaml of the 8.0 to
// 8.3 releases and its runs' args.yaml; EasyOCR's trainer options (trainer/config_files/*.yaml,
// train.py). docs/ultralytics.md and docs/easyocr.md say what each does here.
const std::vector<std::string>& tool_file_keys(ForeignTool tool);

}  // namespace trainer
