#include "onnx/yolo_head_graphs.h"

#include <torch/torch.h>

#include <algorithm>

#include "onnx/torch_layers.h"
#include "onnx/yolo_block_graphs.h"

namespace trainer::onnx_export {
namespace {

using Ints = std::vector<int64_t>;

struct AnchorTable {
  torch::Tensor offsets;  ///< [A, 4]: cell centres in grid units, (x, y, 0, 0) or (x, y, x, y)
  torch::Tensor scales;   ///< [A, 4]: the level's stride, repeated
};

AnchorTable anchor_table(const std::vector<double>& strides, int64_t height, int64_t width, bool corners) {
  std::vector<torch::Tensor> offsets, scales;
  for (const double stride : strides) {
    const auto rows = static_cast<int64_t>(height / stride), columns = static_cast<int64_t>(width / stride);
    const torch::Tensor y = torch::arange(rows, torch::kFloat) + 0.5, x = torch::arange(columns, torch::kFloat) + 0.5;
    const std::vector<torch::Tensor> grid = torch::meshgrid({y, x}, "ij");
    const torch::Tensor centres = torch::stack({grid[1].flatten(), grid[0].flatten()}, 1);
    offsets.push_back(torch::cat({centres, corners ? centres : torch::zeros_like(centres)}, 1));
    scales.push_back(torch::full({rows * columns, 4}, stride, torch::kFloat));
  }
  return {torch::cat(offsets), torch::cat(scales)};
}

// The side distances (l, t, r, b) to a box around the anchor: [out, side] for (cx - ax, cy - ay,
// w, h), or for corners (x1 - ax, y1 - ay, x2 - ax, y2 - ay).
torch::Tensor sides_to_box(bool corners) {
  const std::vector<float> values = corners ? std::vector<float>{-1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
                                            : std::vector<float>{-0.5, 0, 0.5, 0, 0, -0.5, 0, 0.5, 1, 0, 1, 0, 0, 1, 0, 1};
  return torch::tensor(values, torch::kFloat).view({4, 4});
}

// The box outputs of all levels [B, 4 * bins, A] -> boxes [B, 4, A] in input pixels: with bins, the
// DFL expectation (its frozen weights 0..bins-1) and the distance-to-box arithmetic in one matrix.
std::string decode_boxes(GraphBuilder& graph, const yolo::DetectImpl& head, const std::string& box,
                         const DetectGraphRequest& request, bool corners) {
  const int64_t bins = head.options.reg_max();
  std::string sides;
  torch::Tensor values = torch::ones({1});
  if (bins > 1) {
    sides = graph.node("Reshape", {box, graph.int64s("dfl.sides", {0, 4, bins, -1})});
    sides = graph.node("Transpose", {sides}, {{"perm", Ints{0, 3, 1, 2}}});  // [B, A, 4, bins]
    sides = graph.node("Softmax", {sides}, {{"axis", int64_t{3}}});
    sides = graph.node("Reshape", {sides, graph.int64s("dfl.flat", {0, 0, 4 * bins})});
    values = head.dfl->conv->weight.detach().to(torch::kFloat).flatten();
  } else {
    sides = graph.node("Transpose", {box}, {{"perm", Ints{0, 2, 1}}});  // [B, A, 4]: the distances
  }
  const torch::Tensor matrix = (values.view({1, bins, 1}) * sides_to_box(corners).t().view({4, 1, 4})).reshape({4 * bins, 4});
  const std::string decoded = graph.node("MatMul", {sides, graph.constant("box.decode", matrix)});  // [B, A, 4]
  const AnchorTable anchors = anchor_table(head.options.strides(), request.height, request.width, corners);
  const std::string pixels = graph.node("Mul", {graph.node("Add", {decoded, graph.constant("anchors", anchors.offsets)}),
                                                graph.constant("strides", anchors.scales)});
  return graph.node("Transpose", {pixels}, {{"perm", Ints{0, 2, 1}}});
}

// [B, k] -> [B, k, 1], and that repeated to `width` along the last axis.
std::string column(GraphBuilder& graph, const std::string& x, int64_t rows) {
  return graph.node("Reshape", {x, graph.int64s("column", {0, rows, 1})});
}
std::string widened(GraphBuilder& graph, const std::string& x, int64_t rows, int64_t width) {
  return graph.node("Expand", {column(graph, x, rows), graph.int64s("widths", {1, 1, width})});
}

// Ultralytics' Detect.postprocess: the k anchors of highest best-class score, then the k highest
// (anchor, class) scores among them -> [B, k, 6] rows (x1, y1, x2, y2, score, class).
std::string top_rows(GraphBuilder& graph, const std::string& predictions, int64_t classes, int64_t rows) {
  const std::string rows_first = graph.node("Transpose", {predictions}, {{"perm", Ints{0, 2, 1}}});  // [B, A, 4 + C]
  const std::string boxes = slice(graph, rows_first, 2, 0, 4);
  const std::string scores = slice(graph, rows_first, 2, 4, 4 + classes);
  const std::string best = graph.node("ReduceMax", {scores}, {{"axes", Ints{2}}, {"keepdims", int64_t{0}}});
  const std::string k = graph.int64s("k", {rows});
  const std::string anchors = graph.node_outputs("TopK", {best, k}, {{"axis", int64_t{1}}}, 2)[1];  // [B, k]
  const std::string candidates = graph.node(
      "GatherElements", {scores, widened(graph, anchors, rows, classes)}, {{"axis", int64_t{1}}});  // [B, k, C]
  const std::vector<std::string> top = graph.node_outputs(
      "TopK", {graph.node("Reshape", {candidates, graph.int64s("pairs", {0, rows * classes})}), k},
      {{"axis", int64_t{1}}}, 2);
  const std::string count = graph.int64s("classes", {classes});
  const std::string anchor = graph.node("GatherElements", {anchors, graph.node("Div", {top[1], count})},
                                        {{"axis", int64_t{1}}});
  const std::string box = graph.node("GatherElements", {boxes, widened(graph, anchor, rows, 4)}, {{"axis", int64_t{1}}});
  const int64_t float_type = graph.half() ? 10 : 1;  // TensorProto FLOAT16 : FLOAT
  const std::string cls = graph.node("Cast", {graph.node("Mod", {top[1], count})}, {{"to", float_type}});
  return graph.node("Concat", {box, column(graph, top[0], rows), column(graph, cls, rows)}, {{"axis", int64_t{2}}});
}

}  // namespace

int64_t anchor_count(const std::vector<double>& strides, int64_t height, int64_t width) {
  int64_t anchors = 0;
  for (const double stride : strides) {
    anchors += (height / static_cast<int64_t>(stride)) * (width / static_cast<int64_t>(stride));
  }
  return anchors;
}

DetectGraph detect_graph(GraphBuilder& graph, const yolo::DetectImpl& head, const std::vector<std::string>& levels,
                         const DetectGraphRequest& request) {
  const bool one_to_one = request.one_to_one && head.options.end2end();
  const torch::nn::ModuleList& box_branches = one_to_one ? head.one2one_cv2 : head.cv2;
  const torch::nn::ModuleList& class_branches = one_to_one ? head.one2one_cv3 : head.cv3;
  const std::string prefix = request.key + (one_to_one ? ".one2one_" : ".");
  std::vector<std::string> boxes, classes;
  for (size_t i = 0; i < levels.size(); ++i) {
    const std::string index = std::to_string(i);
    const std::string flat = graph.int64s("level.flat", {0, 0, -1});
    boxes.push_back(graph.node("Reshape", {chain_graph(graph, *box_branches->ptr(i), levels[i], request.fold,
                                                       prefix + "cv2." + index), flat}));
    classes.push_back(graph.node("Reshape", {chain_graph(graph, *class_branches->ptr(i), levels[i], request.fold,
                                                         prefix + "cv3." + index), flat}));
  }
  const std::string box = graph.node("Concat", boxes, {{"axis", int64_t{2}}});
  const std::string scores = graph.node("Sigmoid", {graph.node("Concat", classes, {{"axis", int64_t{2}}})});
  const std::string predictions =
      graph.node("Concat", {decode_boxes(graph, head, box, request, one_to_one), scores}, {{"axis", int64_t{1}}});
  if (!one_to_one) return {predictions, "", 0};
  const int64_t rows = std::min(request.max_det, anchor_count(head.options.strides(), request.height, request.width));
  return {top_rows(graph, predictions, head.options.classes(), rows), predictions, rows};
}

std::string classify_graph(GraphBuilder& graph, const yolo::ClassifyImpl& head, const std::string& x, bool fold,
                           const std::string& key) {
  const std::string pooled =
      graph.node("GlobalAveragePool", {conv_graph(graph, *head.conv, x, fold, key + ".conv")});
  const std::string logits =
      linear(graph, graph.node("Flatten", {pooled}, {{"axis", int64_t{1}}}), *head.linear, key + ".linear");
  return graph.node("Softmax", {logits}, {{"axis", int64_t{1}}});
}

}  // namespace trainer::onnx_export
