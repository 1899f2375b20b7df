// Recipes: YAML text (ours, and the keys of Ultralytics, timm and EasyOCR files) plus key=value
// overrides. The input is the YAML, then a NUL byte, then one override argument per line. A
// recipe that loads must survive its own round trip: to_yaml's text loads to the same recipe.
#include <cstdlib>
#include <sstream>

#include "config/recipe.h"
#include "support/fuzz_target.h"

using namespace trainer;

namespace {

// The registered families' names (families/model_families.cpp) without their builders, which keeps
// the reader build free of the models and ONNX; the loader reads any catalog alike.
const ModelCatalog& catalog() {
  static const ModelCatalog names = {
      {names_starting_with("resnet"), "resnet18/34/50", TaskKind::classify, "resnet18"},
      {names_starting_with("crnn"), "crnn", TaskKind::ocr, "crnn"},
      {names_starting_with("yolov8"), "yolov8n/s/m/l/x", TaskKind::detect, "yolov8n"},
  };
  return names;
}

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::scratch_file("recipe.yaml", "");  // quiets the log lines; recipes are read from memory
  const std::string_view input = fuzz::bytes_of(data, size);
  const size_t nul = input.find('\0');
  const std::string yaml(input.substr(0, nul));
  const std::vector<std::string> overrides =
      nul == std::string_view::npos ? std::vector<std::string>{} : lines_of(input.substr(nul + 1));
  fuzz::read_or_refuse([&] {
    const std::string resolved = to_yaml(load_settings_from_yaml(yaml, "recipe.yaml", overrides, catalog()));
    if (to_yaml(load_settings_from_yaml(resolved, "resolved.yaml", {}, catalog())) != resolved) {
      std::abort();  // a recipe that does not load back as itself: a wrong silent read
    }
  });
  return 0;
}
