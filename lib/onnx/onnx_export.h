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
  // An end-to-end detector: its one-to-one branch with Ultralytics' top-k selection of max_det
  // rows [x1, y1, x2, y2, score, class] (else the one-to-many branch in the NMS layout).
  bool end2end = true;
  int64_t max_det = 300;
};

// A family's graph: the shapes of its input `images` and of its output, and the output's value.
struct FamilyGraph {
  std::vector<Dim> input, output;
  std::string value;
  // An end-to-end detector's top-k rows are taken from this value, its boxes (x1, y1, x2, y2) and
  // scores [B, 4 + classes, anchors]: a runtime without TopK (OpenCV 4.6) runs the graph to it.
  std::string predictions;
  bool probabilities = false;  ///< the output is class probabilities (a softmax), not logits
  // OpenCV 4.6 computes some graphs with YOLO11's attention blocks wrongly with its layer fusion on
  // (yolo26n 0.1 % off, yolo11n-cls 0.03 %; yolo11n was right): graphs with attention run with it off.
  bool opencv_fusion = true;
};

// The metadata keys naming those two for `trainer predict/val model=FILE.onnx` (onnx/opencv_model.h).
inline constexpr const char* kPredictionsKey = "trainer_predictions";
inline constexpr const char* kOutputKey = "trainer_output";
inline constexpr const char* kOpenCvFusionKey = "trainer_opencv_fusion";

// A model as an ONNX graph: its family's writer bound to the model when the family built it
// (lib/families), so export needs neither the family nor the module's type. It refuses, with
// `unsupported`, a size it cannot take, and adds the input `images` and the model's evaluation
// forward.
using ModelGraph = std::function<FamilyGraph(GraphBuilder&, const GraphRequest&)>;

// The model's graph with the card's metadata; an option the family cannot honour is a UserError
// naming it.
OnnxFile export_onnx(const ModelGraph& model_graph, const ModelCard& card, const OnnxOptions& options);

// UserError "export format=onnx: <what>".
[[noreturn]] void unsupported(const std::string& what);

// "640", "480,640" or "[480, 640]" -> {height, width}; UserError naming `imgsz` otherwise.
std::vector<int64_t> parse_imgsz(const std::string& text);

// The metadata key holding the recipe, which `trainer predict/val model=FILE.onnx` rebuild the task from.
inline constexpr const char* kRecipeKey = "trainer_recipe";
// The metadata key holding the model-definition file's text of a model built from one (ModelCard).
inline constexpr const char* kModelDefinitionKey = "trainer_model_definition";

}  // namespace trainer::onnx_export
