#include "io/run_folder.h"

#include "util/error.h"

namespace trainer {

std::filesystem::path make_numbered_folder(const std::filesystem::path& parent, const std::string& name,
                                           bool exist_ok) {
  std::filesystem::path folder = parent / name;
  for (int suffix = 2; !exist_ok && std::filesystem::exists(folder); ++suffix) {
    folder = parent / (name + std::to_string(suffix));
  }
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) throw UserError("cannot create folder " + folder.string() + ": " + error.message());
  return folder;
}

RunFolder RunFolder::of_checkpoint(const std::filesystem::path& checkpoint) {
  return {std::filesystem::absolute(checkpoint).parent_path().parent_path()};
}

RunFolder make_run_folder(const std::string& project, const std::string& task, const std::string& name, bool exist_ok) {
  const RunFolder folder{make_numbered_folder(std::filesystem::path(project) / task, name, exist_ok)};
  std::error_code error;
  std::filesystem::create_directories(folder.weights(), error);
  if (error) throw UserError("cannot create run folder " + folder.root.string() + ": " + error.message());
  return folder;
}

}  // namespace trainer
