// Tests that compare against PyTorch run its Python scripts in scripts/python with the system
// interpreter, which has torch 1.13 and torchvision 0.14, and exchange files in a temp folder.
#pragma once
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace trainer::testing {

// A fresh folder removed with everything in it when the object goes.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ = std::filesystem::temp_directory_path() /
            ("trainer_tests_" + std::to_string(stamp) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// Runs scripts/python/<script> with `arguments` (already quoted where needed); fails the test
// unless it exits 0.
inline void run_python(const std::string& script, const std::string& arguments) {
  const std::string command =
      "/usr/bin/python3 '" TRAINER_SOURCE_DIR "/scripts/python/" + script + "' " + arguments;
  INFO(command);
  const int status = std::system(command.c_str());
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
}

inline std::string quoted(const std::string& text) { return "'" + text + "'"; }

}  // namespace trainer::testing
