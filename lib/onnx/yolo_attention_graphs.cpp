#include "onnx/yolo_attention_graphs.h"

#include <cmath>

#include "onnx/yolo_block_graphs.h"

namespace trainer::onnx_export {

using Ints = std::vector<int64_t>;

std::string attention_graph(GraphBuilder& graph, const yolo::AttentionImpl& block, const std::string& x, bool fold,
                            const std::string& key, int64_t height, int64_t width) {
  const int64_t heads = block.heads, key_dim = block.key_dim, head_dim = block.head_dim;
  // [B, heads, 2 * key_dim + head_dim, H * W]: per head its query, key and value rows.
  const std::string rows =
      graph.node("Reshape", {conv_graph(graph, *block.qkv, x, fold, key + ".qkv"),
                             graph.int64s(key + ".heads", {0, heads, 2 * key_dim + head_dim, height * width})});
  const std::string query = slice(graph, rows, 2, 0, key_dim);
  const std::string keys = slice(graph, rows, 2, key_dim, 2 * key_dim);
  const std::string value = slice(graph, rows, 2, 2 * key_dim, 2 * key_dim + head_dim);
  const std::string scores = graph.node(
      "MatMul", {graph.node("Transpose", {query}, {{"perm", Ints{0, 1, 3, 2}}}), keys});  // [B, heads, N, N]
  const std::string weights = graph.node(
      "Softmax",
      {graph.node("Mul", {scores, graph.constant(key + ".scale",
                                                 torch::tensor({std::pow(static_cast<float>(key_dim), -0.5F)}))})},
      {{"axis", int64_t{3}}});
  const std::string attended =
      graph.node("MatMul", {value, graph.node("Transpose", {weights}, {{"perm", Ints{0, 1, 3, 2}}})});
  const std::string map = graph.int64s(key + ".map", {0, block.channels, height, width});
  const std::string position =
      conv_graph(graph, *block.pe, graph.node("Reshape", {value, map}), fold, key + ".pe");
  return conv_graph(graph, *block.proj, graph.node("Add", {graph.node("Reshape", {attended, map}), position}),
                    fold, key + ".proj");
}

std::string psa_block_graph(GraphBuilder& graph, const yolo::PSABlockImpl& block, const std::string& x, bool fold,
                            const std::string& key, int64_t height, int64_t width) {
  const std::string y =
      graph.node("Add", {x, attention_graph(graph, *block.attn, x, fold, key + ".attn", height, width)});
  return graph.node("Add", {y, chain_graph(graph, *block.ffn, y, fold, key + ".ffn")});
}

std::string c2psa_graph(GraphBuilder& graph, const yolo::C2PSAImpl& block, const std::string& x, bool fold,
                        const std::string& key, int64_t height, int64_t width) {
  const std::vector<std::string> halves = graph.node_outputs(
      "Split", {conv_graph(graph, *block.cv1, x, fold, key + ".cv1")}, {{"axis", int64_t{1}}}, 2);
  std::string y = halves[1];
  for (size_t i = 0; i < block.m->size(); ++i) {
    y = psa_block_graph(graph, *block.m->ptr<yolo::PSABlockImpl>(i), y, fold, key + ".m." + std::to_string(i),
                        height, width);
  }
  return conv_graph(graph, *block.cv2, graph.node("Concat", {halves[0], y}, {{"axis", int64_t{1}}}), fold,
                    key + ".cv2");
}

}  // namespace trainer::onnx_export
