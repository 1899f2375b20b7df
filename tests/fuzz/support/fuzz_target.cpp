#include "fuzz_target.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace trainer::fuzz {
namespace {

namespace fs = std::filesystem;

fs::path scratch_folder;

void remove_scratch() {
  std::error_code ignored;
  fs::remove_all(scratch_folder, ignored);
}

// One folder per process, so parallel fuzzers and replays never share files.
void enter_scratch() {
  if (!scratch_folder.empty()) return;
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/trainer-fuzz-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create " + pattern);
  scratch_folder = pattern;
  std::atexit(remove_scratch);
  spdlog::set_level(spdlog::level::off);
}

}  // namespace

std::string scratch_file(const std::string& name, std::string_view bytes) {
  enter_scratch();
  const fs::path path = scratch_folder / name;
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out.flush()) throw std::runtime_error("cannot write the scratch file " + path.string());
  return path.string();
}

}  // namespace trainer::fuzz
