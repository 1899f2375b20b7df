// `trainer export … format=onnx`: a trained model written as an ONNX graph (GraphBuilder) by its
// family's writer, in the layout each ecosystem's post-processing expects, with what a deployed
// copy needs in metadata_props (Ultralytics' keys for detection).
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
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

// What export asks of a family's graph: the input's batch (a number, or "batch" when dynamic),
// channels and size.
struct GraphRequest {
  Dim batch = int64_t{1};
  int64_t channels = 3, height = 0, width = 0;
  bool dynamic = false;   ///< a side the family lets vary is named too (the OCR width)
  bool simplify = false;  ///< norms folded into the convolutions
};

// A family's graph: the shapes of its input `images` and of its output, and the output's value.
struct FamilyGraph {
  std::vector<Dim> input, output;
  std::string value;
};

// A family's graph writer (lib/families registers one per family): refuses, with `unsupported`,
// a size it cannot take, adds the input `images` and the model's evaluation forward.
using GraphWriter = std::function<FamilyGraph(GraphBuilder&, const torch::nn::Module&, const GraphRequest&)>;

// The writer of a family whose models are `Impl` modules; `family` names it when given another module.
template <class Impl>
GraphWriter graph_writer(FamilyGraph (*write)(GraphBuilder&, const Impl&, const GraphRequest&), std::string family);

// `model` written by `writer` (its family's); an option the family cannot honour is a UserError
// naming it.
OnnxFile export_onnx(const GraphWriter& writer, const torch::nn::Module& model, const ModelCard& card,
                     const OnnxOptions& options);

// UserError "export format=onnx: <what>".
[[noreturn]] void unsupported(const std::string& what);

// "640", "480,640" or "[480, 640]" -> {height, width}; UserError naming `imgsz` otherwise.
std::vector<int64_t> parse_imgsz(const std::string& text);

// The metadata key holding the recipe, which `trainer predict/val model=FILE.onnx` rebuild the task from.
inline constexpr const char* kRecipeKey = "trainer_recipe";

template <class Impl>
GraphWriter graph_writer(FamilyGraph (*write)(GraphBuilder&, const Impl&, const GraphRequest&), std::string family) {
  return [write, family = std::move(family)](GraphBuilder& graph, const torch::nn::Module& model,
                                             const GraphRequest& request) {
    const auto* typed = dynamic_cast<const Impl*>(&model);
    if (typed == nullptr) unsupported("the model is not a " + family);
    return write(graph, *typed, request);
  };
}

}  // namespace trainer::onnx_export
