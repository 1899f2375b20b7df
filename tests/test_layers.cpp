// The folders of lib/ form layers that point one way (README, "Development"; docs/architecture.md):
// a file includes its own folder, or folders below it, never one above. Reading the sources keeps
// the order true as the code grows.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "test_helpers.h"

namespace {

namespace fs = std::filesystem;

// Bottom to top. The README's "Development" paragraph and docs/architecture.md state the same order.
const std::vector<std::string> kLayers = {"util", "config", "data",   "io",     "plot",  "models",  "onnx", "families",
                                          "dist", "optim",  "engine", "compile", "tasks", "run",     "apps"};

int layer_of(const std::string& folder) {
  for (size_t i = 0; i < kLayers.size(); ++i) {
    if (kLayers[i] == folder) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

TEST_CASE("every #include under lib/ and apps/ points down the layers", "[layers]") {
  const fs::path root = TRAINER_SOURCE_DIR;
  const std::regex include_line(R"(^\s*#\s*include\s+"([^/"]+)/[^"]+")");
  std::string upward;
  size_t files = 0;
  for (const fs::path& relative : trainer::testing::library_and_app_sources()) {
    ++files;
    const std::string top = relative.begin()->string();
    const std::string folder = top == "apps" ? "apps" : std::next(relative.begin())->string();
    const int own = layer_of(folder);
    INFO(relative.string());
    REQUIRE(own >= 0);  // a new folder must be placed in kLayers (and the README and docs/architecture.md)
    std::ifstream in(root / relative);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      std::smatch match;
      if (!std::regex_search(line, match, include_line)) continue;
      const int included = layer_of(match[1].str());
      if (included > own) upward += "\n" + relative.string() + ":" + std::to_string(number) + ": " + line;
    }
  }
  CHECK(files > 100);
  INFO(
      "includes that point up the layers (util < config < data < io < plot < models < onnx < families < dist < optim < "
      "engine < compile < tasks < run < apps):"
      << upward);
  CHECK(upward.empty());
}
