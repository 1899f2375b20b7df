// What the key table tells people: docs/recipe-keys.md and the key list of `trainer train --help`,
// both made from the table so that neither is kept by hand.
#pragma once
#include <string>

#include "config/recipe_keys.h"

namespace trainer {

// The whole of docs/recipe-keys.md (`trainer keys --markdown` prints it; a test checks the file).
std::string recipe_keys_markdown();

// `text` as a Markdown table cell (its `|` escaped).
std::string markdown_cell(const std::string& text);

// The full default recipe as YAML, every key with its help line as a comment above it, by section
// (`trainer copy-cfg` writes it to default_copy.yaml); it loads back as a recipe.
std::string default_recipe_yaml();

// docs/ultralytics.md, docs/easyocr.md or docs/timm.md: every key of that tool's recipe files (timm:
// its train.py flags), in the tool's order, and what it is here, from the rows' spellings of that
// tool (`trainer keys --markdown --from ultralytics|easyocr|timm`; a test checks the files).
std::string tool_keys_markdown(ForeignTool tool);

// Every key by section with its default and help, for a command's --help.
std::string recipe_keys_help();

}  // namespace trainer
