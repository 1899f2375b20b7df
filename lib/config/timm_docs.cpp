#include "config/timm_docs.h"

#include <algorithm>
#include <sstream>

#include "config/key_docs.h"
#include "config/timm_flags.h"

namespace trainer {
namespace {

constexpr const char* kIntroduction = R"(# Coming from timm

<!-- Generated from the key table's timm spellings (lib/config/timm_flags.cpp) by
     `trainer keys --markdown --from timm`; a test fails when this file is stale. -->

timm's `train.py` flags work on `trainer train` (and the other recipe commands): `--key value`,
`--key=value` and `key=value` are the same override, a flag's dashes are underscores
(`--warmup-epochs 2` is `warmup_epochs=2`), `-b N` is `--batch-size N` and `-j N` is
`--workers N`. Every recipe key of docs/recipe-keys.md can be given this way. A flag with no
value is a boolean's `true` (`--model-ema`); one followed by several values gets them as a list.
The same names work in a recipe file.

The data folder is timm's ImageFolder layout: `train/<class>/` and `validation/<class>/` (or
`val/<class>/`). The launcher is not needed: `./distributed_train.sh 2 --data-dir /imagenet …`
is `trainer train nproc=2 --data-dir /imagenet …`.

A flag whose meaning is ours is taken with an info line saying which key it set; one whose
meaning differs, or that asks for something not offered, stops the command with the reason, and
all such problems of one command are listed in one run. Defaults are ours, not timm's (epochs,
momentum, label smoothing and EMA differ): `trainer plan` prints the resolved recipe.
)";

std::string flag(const std::string& name) {
  std::string spelled = "--" + name;
  std::replace(spelled.begin(), spelled.end(), '_', '-');
  return "`" + spelled + "`";
}

}  // namespace

std::string timm_flags_markdown() {
  std::ostringstream out;
  out << kIntroduction << "\n## timm's flags with a spelling of their own\n\n| timm | here | |\n|---|---|---|\n";
  for (const auto& [key, spelling] : timm_spellings()) {
    const bool same = spelling.meaning == ForeignMeaning::same;
    out << "| " << flag(spelling.name) << " | " << (key.empty() ? std::string("no counterpart") : "`" + key + "`")
        << " | " << (same ? "accepted" : "refused")
        << (spelling.note.empty() ? "" : ": " + markdown_cell(spelling.note)) << " |\n";
  }
  out << "\n## timm's flags that are our keys\n\n| timm | note |\n|---|---|\n";
  for (const SharedFlagName& shared : timm_flags_named_like_our_keys()) {
    out << "| " << flag(shared.name) << " | " << (shared.note.empty() ? "the same meaning" : markdown_cell(shared.note))
        << " |\n";
  }
  out << "\nAny other flag of timm's is an unknown key here, with a did-you-mean where one of our keys is a "
         "likely typo.\n";
  return out.str();
}

}  // namespace trainer
