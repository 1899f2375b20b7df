// Shared test fixtures: temporary folders and running the real binary.
#pragma once
#include <filesystem>
#include <string>

namespace trainer::testing {

// A fresh, empty folder under the system temp dir, removed when the object dies.
class TempDir {
 public:
  explicit TempDir(const std::string& tag);
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

void write_text(const std::filesystem::path& path, const std::string& text);
std::string read_text(const std::filesystem::path& path);

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};
// Runs a shell command line, capturing its output.
CommandResult run_command(const std::string& command);
// Runs the trainer binary built with the tests.
CommandResult run_trainer(const std::string& arguments);

}  // namespace trainer::testing
