// `trainer export … format=onnx`: a trained ResNet, CRNN or YOLOv8 written as an ONNX graph
// (GraphBuilder), in the layout each ecosystem's post-processing expects, with what a deployed
// copy needs in metadata_props (Ultralytics' keys for detection).
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <torch/nn/module.h>

#include "io/model_card.h"
#include "onnx/graph_builder.h"

namespace trainer::onnx_export {

// Ultralytics' export arguments that apply to ONNX.
struct OnnxOptions {
  std::optional<std::vector<int64_t>> imgsz;  ///< {height, width}; unset: the size the model validates at
  int64_t batch = 1;
  bool dynamic = false;   ///< batch (and the OCR width) named instead of fixed
  bool half = false;      ///< fp16 weights, input and output
  bool simplify = false;  ///< norms folded into the convolutions
  int64_t opset = kDefaultOpset;
};

struct OnnxFile {
  std::string bytes;                   ///< the serialized ModelProto
  std::vector<std::string> operators;  ///< operator types used
  std::vector<Dim> input, output;      ///< the graph's input and output shapes
};

// `model` is a ResNet, Crnn or YOLOv8 module; an option the family cannot honour is a UserError
// naming it.
OnnxFile export_onnx(const torch::nn::Module& model, const ModelCard& card, const OnnxOptions& options);

// "640", "480,640" or "[480, 640]" -> {height, width}; UserError naming `imgsz` otherwise.
std::vector<int64_t> parse_imgsz(const std::string& text);

// The metadata key holding the recipe, which `trainer predict/val model=FILE.onnx` rebuild the task from.
inline constexpr const char* kRecipeKey = "trainer_recipe";

}  // namespace trainer::onnx_export
