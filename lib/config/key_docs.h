// What the key table tells people: docs/recipe-keys.md and the key list of `trainer train --help`,
// both made from the table so that neither is kept by hand.
#pragma once
#include <string>

#include "config/recipe_keys.h"

namespace trainer {

// The whole of docs/recipe-keys.md (`trainer keys --markdown` prints it; a test checks the file).
std::string recipe_keys_markdown();

// docs/ultralytics.md or docs/easyocr.md: every key of that tool's recipe files and what it does
// here (`trainer keys --markdown --from ultralytics|easyocr`; a test checks the files).
std::string tool_keys_markdown(ForeignTool tool);

// Every key by section with its default and help, for a command's --help.
std::string recipe_keys_help();

}  // namespace trainer
