#include "onnx/yolo_graph.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include "onnx/yolo_attention_graphs.h"
#include "onnx/yolo_block_graphs.h"
#include "onnx/yolo_head_graphs.h"

namespace trainer::onnx_export {
namespace {

using Kind = YoloImpl::LayerKind;

// A layer's output and its size in cells (the attention blocks reshape by it).
struct Feature {
  std::string value;
  int64_t height = 0, width = 0;
};

Feature layer_graph(GraphBuilder& graph, const YoloImpl& model, size_t i, const std::vector<Feature>& inputs,
                    bool fold) {
  const Kind kind = model.layers()[i].kind;
  const std::string key = "model." + std::to_string(i);
  const Feature& x = inputs.front();
  const auto& layer = model.model->ptr(i);
  switch (kind) {
    case Kind::conv: {
      const auto& conv = *layer->as<yolo::ConvImpl>();
      return {conv_graph(graph, conv, x.value, fold, key), (x.height - 1) / conv.stride + 1,
              (x.width - 1) / conv.stride + 1};
    }
    case Kind::c2f:
    case Kind::c3k2:
      return {c2f_graph(graph, *layer->as<yolo::C2fImpl>(), x.value, fold, key, x.height, x.width), x.height, x.width};
    case Kind::c3:
      return {c3_graph(graph, *layer->as<yolo::C3Impl>(), x.value, fold, key), x.height, x.width};
    case Kind::sppf:
      return {sppf_graph(graph, *layer->as<yolo::SPPFImpl>(), x.value, fold, key), x.height, x.width};
    case Kind::c2psa:
      return {c2psa_graph(graph, *layer->as<yolo::C2PSAImpl>(), x.value, fold, key, x.height, x.width), x.height,
              x.width};
    case Kind::upsample:
      return {upsample_graph(graph, x.value), 2 * x.height, 2 * x.width};
    case Kind::concat: {
      std::vector<std::string> values;
      for (const Feature& input : inputs) values.push_back(input.value);
      return {graph.node("Concat", values, {{"axis", int64_t{1}}}), x.height, x.width};
    }
    case Kind::classify:
      return {classify_graph(graph, *layer->as<yolo::ClassifyImpl>(), x.value, fold, key), 1, 1};
    case Kind::detect:
      break;
  }
  throw std::logic_error("yolo_graph: the Detect head is written by detect_graph");
}

}  // namespace

FamilyGraph yolo_onnx(GraphBuilder& graph, const YoloImpl& model, const GraphRequest& request) {
  const int64_t height = request.height, width = request.width;
  const auto stride = model.detects() ? static_cast<int64_t>(*std::max_element(model.strides().begin(),
                                                                                model.strides().end()))
                                      : int64_t{32};
  if (height % stride != 0 || width % stride != 0) {
    unsupported(fmt::format("imgsz={},{}: this YOLO needs sides that are multiples of its stride {}", height, width,
                            stride));
  }
  FamilyGraph written;
  written.input = {request.batch, request.channels, height, width};
  std::vector<Feature> outputs;
  const Feature images{graph.input("images", written.input), height, width};
  for (size_t i = 0; i < model.layers().size(); ++i) {
    std::vector<Feature> inputs;
    for (const int64_t source : model.layers()[i].from) {
      inputs.push_back(source >= 0 ? outputs[static_cast<size_t>(source)] : i == 0 ? images : outputs.back());
    }
    if (model.layers()[i].kind != Kind::detect) {
      outputs.push_back(layer_graph(graph, model, i, inputs, request.simplify));
      const auto* block = model.model->ptr(i)->as<yolo::C2fImpl>();
      const bool attention = model.layers()[i].kind == Kind::c2psa ||
                             (block != nullptr && block->inner == yolo::C2fInner::attention);
      if (attention) written.opencv_fusion = false;
      continue;
    }
    std::vector<std::string> levels;
    for (const Feature& input : inputs) levels.push_back(input.value);
    const DetectGraph head = detect_graph(
        graph, model.head(), levels,
        {"model." + std::to_string(i), request.simplify, height, width, request.end2end, request.max_det});
    written.value = head.output;
    written.predictions = head.predictions;
    const int64_t classes = model.options.classes();
    written.output = head.predictions.empty()
                         ? std::vector<Dim>{request.batch, 4 + classes, anchor_count(model.strides(), height, width)}
                         : std::vector<Dim>{request.batch, head.rows, int64_t{6}};
    return written;
  }
  written.value = outputs.back().value;
  written.output = {request.batch, model.options.classes()};
  written.probabilities = true;
  return written;
}

}  // namespace trainer::onnx_export
