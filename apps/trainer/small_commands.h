// The small commands Ultralytics users type: version, checks, copy-cfg, cfg and settings.
#pragma once
#include <string>
#include <vector>

namespace trainer::app {

const char* trainer_version();
int run_version();
// The build and the machine: versions, threads, the oneDNN start-up check, free memory and disk.
// 1 when something a run needs is missing or broken.
int run_checks();
// Writes the default recipe to default_copy.yaml in the working directory (refused when it exists).
int run_copy_cfg();
// Prints the default recipe (Ultralytics' `yolo cfg`).
int run_cfg();
// No arguments: prints the settings file and its values; `reset`; or key=value changes.
int run_settings(const std::vector<std::string>& arguments);

}  // namespace trainer::app
