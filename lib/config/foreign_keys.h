// Keys that users of Ultralytics' `yolo train` and timm's train.py type by habit, with what they
// are here: an unknown-key error that knows them says where to go instead of guessing by
// spelling ("sched" is not "seed").
#pragma once
#include <optional>
#include <string>

namespace trainer {

// A phrase for the error message ("timm's --sched is scheduler here"), or nullopt for a key
// neither tool has.
std::optional<std::string> foreign_key_hint(const std::string& name);

}  // namespace trainer
