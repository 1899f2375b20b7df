// What `resume=` means: find the checkpoint, take its recipe, and allow the command line to
// change only what does not break an exact continuation (the key table's resumable keys).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "config/settings.h"
#include "io/checkpoint.h"
#include "io/run_folder.h"

namespace trainer {

struct ResumePoint {
  std::filesystem::path checkpoint_path;
  RunFolder run_folder;  ///< the folder holding weights/last.pt
  Checkpoint checkpoint;
  Settings settings;                 ///< the checkpoint's recipe with the allowed overrides applied
};

// `settings` were parsed from the command (its `resume` key is set); `overrides` are the raw
// key=value arguments, applied on top of the checkpoint's recipe.
ResumePoint prepare_resume(const Settings& settings, const std::vector<std::string>& overrides);

}  // namespace trainer
