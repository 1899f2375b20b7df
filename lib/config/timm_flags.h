// timm's train.py flags (huggingface/pytorch-image-models), as the key table takes them: each is
// read as our key of the same meaning with an info line, or refused with the reason. Kept in one
// block so that timm's side of the table reads (and merges) as one list; docs/timm.md is made
// from it. Names are spelled with underscores (timm's --clip-grad is clip_grad): `--flag value`,
// `--flag=value` and `flag=value` all reach the table the same way.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "config/recipe_keys.h"

namespace trainer {

// timm's spellings with the key they belong to ("" where no key of ours has that meaning).
const std::vector<std::pair<std::string, ForeignSpelling>>& timm_spellings();

// timm flags spelled like one of our keys, with what differs in timm's meaning (empty: nothing).
// Our key always wins, so these are notes for docs/timm.md, never a mapping.
struct SharedFlagName {
  std::string name;
  std::string note;
};
const std::vector<SharedFlagName>& timm_flags_named_like_our_keys();

}  // namespace trainer
