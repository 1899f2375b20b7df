#include "io/run_folder.h"

#include "config/user_settings.h"
#include "util/error.h"

namespace trainer {

std::filesystem::path make_numbered_folder(const std::filesystem::path& parent, const std::string& name,
                                           bool exist_ok) {
  std::filesystem::path folder = parent / name;
  std::error_code error;
  if (exist_ok) {
    std::filesystem::create_directories(folder, error);
    if (error) throw UserError("cannot create folder " + folder.string() + ": " + error.message());
    return folder;
  }
  std::filesystem::create_directories(parent, error);
  if (error) throw UserError("cannot create folder " + parent.string() + ": " + error.message());
  // create_directory says whether this call made the folder: two runs started together never
  // both take the same name.
  for (int suffix = 2; !std::filesystem::create_directory(folder, error); ++suffix) {
    if (error) throw UserError("cannot create folder " + folder.string() + ": " + error.message());
    folder = parent / (name + std::to_string(suffix));
  }
  return folder;
}

RunFolder RunFolder::of_checkpoint(const std::filesystem::path& checkpoint) {
  return {std::filesystem::absolute(checkpoint).parent_path().parent_path()};
}

std::filesystem::path runs_parent(const std::string& project, const std::string& task) {
  if (!project.empty()) return project;
  return std::filesystem::path(load_user_settings().runs_dir) / task;
}

RunFolder make_run_folder(const std::filesystem::path& parent, const std::string& name,
                          bool exist_ok) {
  const RunFolder folder{make_numbered_folder(parent, name, exist_ok)};
  std::error_code error;
  std::filesystem::create_directories(folder.weights(), error);
  if (error) throw UserError("cannot create run folder " + folder.root.string() + ": " + error.message());
  return folder;
}

}  // namespace trainer
