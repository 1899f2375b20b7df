#include "onnx/yolo_block_graphs.h"

#include <torch/torch.h>

#include "onnx/torch_layers.h"
#include "onnx/yolo_attention_graphs.h"

namespace trainer::onnx_export {

std::string conv_graph(GraphBuilder& graph, const yolo::ConvImpl& conv, const std::string& x, bool fold,
                       const std::string& key) {
  const std::string normed = conv_norm(graph, x, *conv.conv, conv.bn.get(), fold, key + ".conv");
  return conv.activation ? silu(graph, normed) : normed;
}

std::string chain_graph(GraphBuilder& graph, const torch::nn::Module& chain, const std::string& x, bool fold,
                        const std::string& key) {
  std::string y = x;
  for (const auto& child : chain.named_children()) {
    const std::string inner = key + "." + child.key();
    if (const auto* conv = child.value()->as<yolo::ConvImpl>()) {
      y = conv_graph(graph, *conv, y, fold, inner);
    } else if (const auto* plain = child.value()->as<torch::nn::Conv2dImpl>()) {
      y = conv_norm(graph, y, *plain, nullptr, fold, inner);
    } else {
      y = chain_graph(graph, *child.value(), y, fold, inner);
    }
  }
  return y;
}

std::string bottleneck_graph(GraphBuilder& graph, const yolo::BottleneckImpl& block, const std::string& x, bool fold,
                             const std::string& key) {
  const std::string y =
      conv_graph(graph, *block.cv2, conv_graph(graph, *block.cv1, x, fold, key + ".cv1"), fold, key + ".cv2");
  return block.shortcut ? graph.node("Add", {x, y}) : y;
}

std::string c3_graph(GraphBuilder& graph, const yolo::C3Impl& block, const std::string& x, bool fold,
                     const std::string& key) {
  std::string y = conv_graph(graph, *block.cv1, x, fold, key + ".cv1");
  for (size_t i = 0; i < block.m->size(); ++i) {
    y = bottleneck_graph(graph, *block.m->ptr<yolo::BottleneckImpl>(i), y, fold, key + ".m." + std::to_string(i));
  }
  const std::string plain = conv_graph(graph, *block.cv2, x, fold, key + ".cv2");
  return conv_graph(graph, *block.cv3, graph.node("Concat", {y, plain}, {{"axis", int64_t{1}}}), fold, key + ".cv3");
}

std::string c2f_graph(GraphBuilder& graph, const yolo::C2fImpl& block, const std::string& x, bool fold,
                      const std::string& key, int64_t height, int64_t width) {
  // Split with no sizes halves the channels in every opset from 11 to 17.
  std::vector<std::string> pieces = graph.node_outputs(
      "Split", {conv_graph(graph, *block.cv1, x, fold, key + ".cv1")}, {{"axis", int64_t{1}}}, 2);
  for (size_t i = 0; i < block.m->size(); ++i) {
    const std::string inner = key + ".m." + std::to_string(i);
    const std::string& last = pieces.back();
    switch (block.inner) {
      case yolo::C2fInner::c3k:
        pieces.push_back(c3_graph(graph, *block.m->ptr<yolo::C3Impl>(i), last, fold, inner));
        break;
      case yolo::C2fInner::attention: {
        const auto& pair = *block.m->ptr<yolo::BottleneckPSAImpl>(i);
        const std::string y = bottleneck_graph(graph, *pair.bottleneck, last, fold, inner + ".0");
        pieces.push_back(psa_block_graph(graph, *pair.psa, y, fold, inner + ".1", height, width));
        break;
      }
      default:
        pieces.push_back(bottleneck_graph(graph, *block.m->ptr<yolo::BottleneckImpl>(i), last, fold, inner));
    }
  }
  return conv_graph(graph, *block.cv2, graph.node("Concat", pieces, {{"axis", int64_t{1}}}), fold, key + ".cv2");
}

std::string sppf_graph(GraphBuilder& graph, const yolo::SPPFImpl& block, const std::string& x, bool fold,
                       const std::string& key) {
  std::vector<std::string> pieces{conv_graph(graph, *block.cv1, x, fold, key + ".cv1")};
  for (int64_t i = 0; i < block.pools; ++i) pieces.push_back(max_pool(graph, pieces.back(), *block.m));
  const std::string y =
      conv_graph(graph, *block.cv2, graph.node("Concat", pieces, {{"axis", int64_t{1}}}), fold, key + ".cv2");
  return block.shortcut && block.in_channels == block.out_channels ? graph.node("Add", {y, x}) : y;
}

std::string upsample_graph(GraphBuilder& graph, const std::string& x) {
  return graph.node("Resize", {x, graph.floats("resize.roi", {}), graph.floats("resize.scales", {1, 1, 2, 2})},
                    {{"mode", std::string("nearest")},
                     {"coordinate_transformation_mode", std::string("asymmetric")},
                     {"nearest_mode", std::string("floor")}});
}

std::string slice(GraphBuilder& graph, const std::string& x, int64_t axis, int64_t start, int64_t end) {
  return graph.node("Slice", {x, graph.int64s("slice.start", {start}), graph.int64s("slice.end", {end}),
                              graph.int64s("slice.axis", {axis})});
}

}  // namespace trainer::onnx_export
