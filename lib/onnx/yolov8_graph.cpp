#include <fmt/format.h>
#include <torch/torch.h>

#include "models/yolo_blocks.h"
#include "models/yolo_head.h"
#include "onnx/torch_layers.h"
#include "onnx/yolov8_graph.h"

namespace trainer::onnx_export {
namespace {

using Kind = YoloImpl::LayerKind;
using Ints = std::vector<int64_t>;

std::string conv_graph(GraphBuilder& graph, const yolo::ConvImpl& conv, const std::string& x,
                       bool fold, const std::string& key) {
  const std::string normed = conv_norm(graph, x, *conv.conv, conv.bn.get(), fold, key + ".conv");
  return conv.activation ? silu(graph, normed) : normed;
}

std::string c2f_graph(GraphBuilder& graph, const yolo::C2fImpl& block, const std::string& x,
                      bool fold, const std::string& key) {
  // Split with no sizes halves the channels in every opset from 11 to 17.
  std::vector<std::string> pieces = graph.node_outputs(
      "Split", {conv_graph(graph, *block.cv1, x, fold, key + ".cv1")}, {{"axis", int64_t{1}}}, 2);
  for (size_t i = 0; i < block.m->size(); ++i) {
    const auto& bottleneck = *block.m->ptr<yolo::BottleneckImpl>(i);
    const std::string inner = key + ".m." + std::to_string(i);
    std::string y =
        conv_graph(graph, *bottleneck.cv2,
                   conv_graph(graph, *bottleneck.cv1, pieces.back(), fold, inner + ".cv1"), fold,
                   inner + ".cv2");
    if (bottleneck.shortcut) y = graph.node("Add", {pieces.back(), y});
    pieces.push_back(y);
  }
  return conv_graph(graph, *block.cv2, graph.node("Concat", pieces, {{"axis", int64_t{1}}}), fold,
                    key + ".cv2");
}

std::string sppf_graph(GraphBuilder& graph, const yolo::SPPFImpl& block, const std::string& x,
                       bool fold, const std::string& key) {
  std::vector<std::string> pieces{conv_graph(graph, *block.cv1, x, fold, key + ".cv1")};
  for (int64_t i = 0; i < block.pools; ++i) {
    pieces.push_back(max_pool(graph, pieces.back(), *block.m));
  }
  const std::string y = conv_graph(
      graph, *block.cv2, graph.node("Concat", pieces, {{"axis", int64_t{1}}}), fold, key + ".cv2");
  return block.shortcut && block.in_channels == block.out_channels ? graph.node("Add", {y, x}) : y;
}

std::string upsample_graph(GraphBuilder& graph, const std::string& x) {
  return graph.node(
      "Resize", {x, graph.floats("resize.roi", {}), graph.floats("resize.scales", {1, 1, 2, 2})},
      {{"mode", std::string("nearest")},
       {"coordinate_transformation_mode", std::string("asymmetric")},
       {"nearest_mode", std::string("floor")}});
}

// One head branch (cv2 or cv3 of a level): two Convs and a biased Conv2d, flattened to [B, C, H*W].
std::string branch_graph(GraphBuilder& graph, const torch::nn::SequentialImpl& branch,
                         const std::string& x, bool fold, const std::string& key) {
  std::string y = conv_graph(graph, *branch.ptr<yolo::ConvImpl>(0), x, fold, key + ".0");
  y = conv_graph(graph, *branch.ptr<yolo::ConvImpl>(1), y, fold, key + ".1");
  const auto& last = *branch.ptr<torch::nn::Conv2dImpl>(2);
  y = conv_norm(graph, y, last, nullptr, fold, key + ".2");
  return graph.node("Reshape",
                    {y, graph.int64s(key + ".flat", {0, last.options.out_channels(), -1})});
}

struct AnchorTable {
  torch::Tensor offsets;  ///< [A, 4]: (x, y, 0, 0) cell centres in grid units
  torch::Tensor scales;   ///< [A, 4]: the level's stride, repeated
};

AnchorTable anchor_table(const std::vector<double>& strides, int64_t height, int64_t width) {
  std::vector<torch::Tensor> offsets, scales;
  for (const double stride : strides) {
    const auto rows = static_cast<int64_t>(height / stride),
               columns = static_cast<int64_t>(width / stride);
    const torch::Tensor y = torch::arange(rows, torch::kFloat) + 0.5,
                        x = torch::arange(columns, torch::kFloat) + 0.5;
    const std::vector<torch::Tensor> grid = torch::meshgrid({y, x}, "ij");
    const torch::Tensor centres = torch::stack({grid[1].flatten(), grid[0].flatten()}, 1);
    offsets.push_back(torch::cat({centres, torch::zeros_like(centres)}, 1));
    scales.push_back(torch::full({rows * columns, 4}, stride, torch::kFloat));
  }
  return {torch::cat(offsets), torch::cat(scales)};
}

// Ultralytics' Detect inference: DFL expectations of the box bins, distances to (cx, cy, w, h)
// around each anchor, times its stride; sigmoid class scores.
std::string detect_graph(GraphBuilder& graph, const yolo::DetectImpl& head,
                         const std::vector<std::string>& levels, bool fold, int64_t height,
                         int64_t width) {
  std::vector<std::string> boxes, classes;
  for (size_t i = 0; i < levels.size(); ++i) {
    const std::string index = std::to_string(i);
    boxes.push_back(branch_graph(graph, *head.cv2->ptr<torch::nn::SequentialImpl>(i), levels[i],
                                 fold, "model.22.cv2." + index));
    classes.push_back(branch_graph(graph, *head.cv3->ptr<torch::nn::SequentialImpl>(i), levels[i],
                                   fold, "model.22.cv3." + index));
  }
  const int64_t bins = head.options.reg_max();
  std::string box = graph.node("Concat", boxes, {{"axis", int64_t{2}}});  // [B, 4 * bins, A]
  box = graph.node("Reshape", {box, graph.int64s("dfl.sides", {0, 4, bins, -1})});
  box = graph.node("Transpose", {box}, {{"perm", Ints{0, 3, 1, 2}}});  // [B, A, 4, bins]
  box = graph.node("Softmax", {box}, {{"axis", int64_t{3}}});
  box = graph.node("Reshape", {box, graph.int64s("dfl.flat", {0, 0, 4 * bins})});
  // One matrix takes the bin probabilities of the sides (l, t, r, b) to (cx - ax, cy - ay, w, h):
  // the DFL expectation (weights 0..bins-1, model.22.dfl) and the distance-to-box arithmetic.
  const torch::Tensor values = head.dfl->conv->weight.detach().to(torch::kFloat).flatten();
  const torch::Tensor sides = torch::tensor({-0.5, 0.0, 0.5, 0.0, 0.0, -0.5, 0.0, 0.5, 1.0, 0.0,
                                             1.0, 0.0, 0.0, 1.0, 0.0, 1.0},
                                            torch::kFloat)
                                  .view({4, 4});  // [out, side]
  const torch::Tensor matrix =
      (values.view({1, bins, 1}) * sides.t().view({4, 1, 4})).reshape({4 * bins, 4});
  box = graph.node("MatMul", {box, graph.constant("dfl.decode", matrix)});  // [B, A, 4]
  const AnchorTable anchors = anchor_table(head.options.strides(), height, width);
  box = graph.node("Mul", {graph.node("Add", {box, graph.constant("anchors", anchors.offsets)}),
                           graph.constant("strides", anchors.scales)});
  box = graph.node("Transpose", {box}, {{"perm", Ints{0, 2, 1}}});
  const std::string scores =
      graph.node("Sigmoid", {graph.node("Concat", classes, {{"axis", int64_t{2}}})});
  return graph.node("Concat", {box, scores}, {{"axis", int64_t{1}}});
}

}  // namespace

std::string yolov8_graph(GraphBuilder& graph, const YoloImpl& model, const std::string& images,
                         bool fold, int64_t height, int64_t width) {
  const std::vector<YoloImpl::Layer>& layers = model.layers();
  std::vector<std::string> outputs;
  for (size_t i = 0; i < layers.size(); ++i) {
    const YoloImpl::Layer& layer = layers[i];
    std::vector<std::string> inputs;
    for (const int64_t source : layer.from) {
      inputs.push_back(source >= 0 ? outputs[static_cast<size_t>(source)]
                       : i == 0    ? images
                                   : outputs.back());
    }
    const std::string key = "model." + std::to_string(i);
    std::string y;
    switch (layer.kind) {
      case Kind::conv:
        y = conv_graph(graph, *model.model->ptr<yolo::ConvImpl>(i), inputs[0], fold, key);
        break;
      case Kind::c3k2:
      case Kind::c3:
      case Kind::c2psa:
      case Kind::classify:
        unsupported("layer model." + std::to_string(i) +
                    " (C3k2, C3, C2PSA or Classify) is not written as ONNX yet");
      case Kind::c2f:
        y = c2f_graph(graph, *model.model->ptr<yolo::C2fImpl>(i), inputs[0], fold, key);
        break;
      case Kind::sppf:
        y = sppf_graph(graph, *model.model->ptr<yolo::SPPFImpl>(i), inputs[0], fold, key);
        break;
      case Kind::upsample:
        y = upsample_graph(graph, inputs[0]);
        break;
      case Kind::concat:
        y = graph.node("Concat", inputs, {{"axis", int64_t{1}}});
        break;
      case Kind::detect:
        return detect_graph(graph, model.head(), inputs, fold, height, width);
    }
    outputs.push_back(y);
  }
  throw std::logic_error("YOLOv8 layer list has no Detect head");
}

FamilyGraph yolov8_onnx(GraphBuilder& graph, const YoloImpl& model, const GraphRequest& request) {
  if (!model.detects()) {
    unsupported("YOLO classification models (-cls) are not written as ONNX yet");
  }
  const yolo::DetectOptions& head = model.head().options;
  if (head.depthwise_classes() || head.end2end() || head.reg_max() != 16) {
    unsupported(
        "the graphs of YOLO11 and YOLO26 (C3k2, C2PSA attention, the depthwise class branch, the "
        "end-to-end head) are not written yet; YOLOv8 models export");
  }
  const int64_t height = request.height, width = request.width;
  if (height % 32 != 0 || width % 32 != 0) {
    unsupported(fmt::format("imgsz={},{}: YOLOv8 needs sides that are multiples of its stride 32",
                            height, width));
  }
  int64_t anchors = 0;
  for (const double stride : model.strides())
    anchors += (height / static_cast<int64_t>(stride)) * (width / static_cast<int64_t>(stride));
  FamilyGraph written;
  written.input = {request.batch, request.channels, height, width};
  written.value = yolov8_graph(graph, model, graph.input("images", written.input), request.simplify,
                               height, width);
  written.output = {request.batch, 4 + model.options.classes(), anchors};
  return written;
}

}  // namespace trainer::onnx_export
