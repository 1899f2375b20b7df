// `trainer export`'s arguments in Ultralytics' spelling (`model=best.pt format=onnx imgsz=640
// dynamic half opset=12 simplify`), next to the options (--weights, --format, --half, -o).
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "onnx/onnx_export.h"

namespace trainer::app {

struct ExportRequest {
  std::string weights;                          ///< the checkpoint
  std::string format;                           ///< pt | safetensors | onnx | "" (from -o, else safetensors)
  std::optional<std::filesystem::path> output;  ///< -o
  bool half = false;
  bool model_weights = false;
  onnx_export::OnnxOptions onnx;
  std::vector<std::string> onnx_only;  ///< the ONNX-only arguments given, to refuse them for weights formats
  // Detection's end2end= and max_det=, recipe keys that shape the graph: key=value overrides of
  // the checkpoint's recipe, so the exported file's recipe records them too.
  std::vector<std::string> recipe_overrides;
};

// Reads `key=value` arguments (a bare boolean key means true) into `request`; an unknown key or a
// bad value is a UserError naming it. Checks that the arguments fit the format.
void read_export_arguments(const std::vector<std::string>& arguments, ExportRequest& request);

}  // namespace trainer::app
