// docs/timm.md, "Coming from timm", made from the key table's timm spellings
// (config/timm_flags.cpp): `trainer keys --markdown --from timm` prints it, a test checks the file.
#pragma once
#include <string>

namespace trainer {

std::string timm_flags_markdown();

}  // namespace trainer
