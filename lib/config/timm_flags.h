// timm's train.py flags (huggingface/pytorch-image-models) in the order of its argparse groups:
// the order docs/timm.md lists them in. What each flag is here is a spelling on its row, the key
// row it belongs to (config/recipe_keys.cpp) or a row of the keys without counterpart
// (config/foreign_keys.cpp). Names are spelled with underscores (timm's --clip-grad is clip_grad):
// `--flag value`, `--flag=value` and `flag=value` all reach the table the same way.
#pragma once
#include <string>
#include <vector>

namespace trainer {

// The flags with a spelling of their own first, then those named like our keys.
const std::vector<std::string>& timm_flag_order();

}  // namespace trainer
