#include "io/run_folder.h"

#include "util/error.h"

namespace trainer {

std::filesystem::path make_run_folder(const std::string& project, const std::string& task,
                                      const std::string& name, bool exist_ok) {
  const std::filesystem::path parent = std::filesystem::path(project) / task;
  std::filesystem::path folder = parent / name;
  for (int suffix = 2; !exist_ok && std::filesystem::exists(folder); ++suffix) {
    folder = parent / (name + std::to_string(suffix));
  }
  std::error_code error;
  std::filesystem::create_directories(folder / "weights", error);
  if (error) throw UserError("cannot create run folder " + folder.string() + ": " + error.message());
  return folder;
}

}  // namespace trainer
