// runs/<task>/<name>/ as Ultralytics lays it out: a new numbered folder unless exist_ok.
#pragma once
#include <filesystem>
#include <string>

namespace trainer {

// Creates and returns parent/name, or parent/name2, name3, … when it exists and !exist_ok.
std::filesystem::path make_numbered_folder(const std::filesystem::path& parent, const std::string& name,
                                           bool exist_ok);

// Creates and returns project/task/name (or name2, name3, … when taken and !exist_ok),
// with a weights/ folder inside.
std::filesystem::path make_run_folder(const std::string& project, const std::string& task,
                                      const std::string& name, bool exist_ok);

}  // namespace trainer
