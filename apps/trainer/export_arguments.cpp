#include "export_arguments.h"

#include "util/error.h"
#include "util/text.h"

namespace trainer::app {
namespace {

const std::vector<std::string>& export_keys() {
  static const std::vector<std::string> keys{"model", "format",   "imgsz",   "batch",  "dynamic",
                                             "half",  "opset",    "simplify", "end2end", "max_det"};
  return keys;
}

bool boolean(const std::string& key, const std::string& value) {
  const std::string lowered = to_lower(value);
  if (lowered == "true") return true;
  if (lowered == "false") return false;
  throw UserError("export: " + key + "=" + value + " is not true or false");
}

int64_t integer(const std::string& key, const std::string& value) {
  if (value.empty() || value.size() > 9 || value.find_first_not_of("0123456789") != std::string::npos) {
    throw UserError("export: " + key + "=" + value + " is not a whole number");
  }
  return std::stoll(value);
}

void read_argument(const std::string& key, const std::string& value, ExportRequest& request) {
  if (key == "model") {
    if (!request.weights.empty()) {
      throw UserError("export: --weights " + request.weights + " and model=" + value +
                      " both name the checkpoint; give one");
    }
    request.weights = value;
    return;
  }
  if (key == "format") {
    request.format = to_lower(value);
  } else if (key == "half") {
    request.half = boolean(key, value);
  } else {
    request.onnx_only.push_back(key);
    if (key == "imgsz") request.onnx.imgsz = onnx_export::parse_imgsz(value);
    if (key == "batch") request.onnx.batch = integer(key, value);
    if (key == "dynamic") request.onnx.dynamic = boolean(key, value);
    if (key == "opset") request.onnx.opset = integer(key, value);
    if (key == "simplify") request.onnx.simplify = boolean(key, value);
    if (key == "end2end" || key == "max_det") request.recipe_overrides.push_back(key + "=" + value);
  }
}

}  // namespace

void read_export_arguments(const std::vector<std::string>& arguments, ExportRequest& request) {
  for (const std::string& argument : arguments) {
    const size_t equals = argument.find('=');
    const std::string key = trim(argument.substr(0, equals));
    const std::string value = equals == std::string::npos ? "true" : trim(argument.substr(equals + 1));
    const auto& keys = export_keys();
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      throw UserError("export: unknown argument '" + argument + "'" + did_you_mean(key, keys) + "; export takes " +
                      join(keys, ", "));
    }
    read_argument(key, value, request);
  }
  if (request.weights.empty()) throw UserError("export needs a checkpoint: --weights PATH (or model=PATH)");
  const bool onnx =
      request.format == "onnx" || (request.format.empty() && request.output && request.output->extension() == ".onnx");
  if (onnx) {
    request.format = "onnx";
    request.onnx.half = request.half;
  } else if (!request.onnx_only.empty()) {
    throw UserError("export: " + join(request.onnx_only, ", ") + " apply to format=onnx only, not to weights files (" +
                    (request.format.empty() ? "safetensors" : request.format) + ")");
  }
  if (!onnx && !request.format.empty() && request.format != "pt" && request.format != "safetensors") {
    throw UserError("export: format=" + request.format + " is not supported; use onnx, pt or safetensors");
  }
}

}  // namespace trainer::app
