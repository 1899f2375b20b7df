#include <torch/torch.h>

#include "onnx/resnet_graph.h"
#include "onnx/torch_layers.h"

namespace trainer::onnx_export {
namespace {

const torch::nn::Module* child(const torch::nn::Module& module, const std::string& name) {
  const auto children = module.named_children();
  const auto* found = children.find(name);
  return found == nullptr ? nullptr : found->get();
}

}  // namespace

// Told apart by its conv3.
std::string resnet_block_graph(GraphBuilder& graph, const torch::nn::Module& block,
                               const std::string& x, bool fold, const std::string& key) {
  const int convs = child(block, "conv3") != nullptr ? 3 : 2;
  std::string y = x;
  for (int i = 1; i <= convs; ++i) {
    const std::string index = std::to_string(i);
    y = conv_norm(graph, y, *child(block, "conv" + index)->as<torch::nn::Conv2d>(), child(block, "bn" + index), fold,
                  key + ".conv" + index);
    if (i < convs) y = graph.node("Relu", {y});
  }
  std::string shortcut = x;
  if (const auto* downsample = child(block, "downsample")) {
    const auto& layers = *downsample->as<torch::nn::Sequential>();
    shortcut =
        conv_norm(graph, x, *layers.ptr(0)->as<torch::nn::Conv2d>(), layers.ptr(1).get(), fold, key + ".downsample.0");
  }
  return graph.node("Relu", {graph.node("Add", {y, shortcut})});
}

std::string resnet_graph(GraphBuilder& graph, const ResNetImpl& model, const std::string& images, bool fold) {
  std::string x = conv_norm(graph, images, *model.conv1, model.bn1.ptr().get(), fold, "conv1");
  x = max_pool(graph, graph.node("Relu", {x}), *model.maxpool);
  const std::vector<std::pair<std::string, torch::nn::Sequential>> layers{
      {"layer1", model.layer1}, {"layer2", model.layer2}, {"layer3", model.layer3}, {"layer4", model.layer4}};
  for (const auto& [name, layer] : layers) {
    for (size_t i = 0; i < layer->size(); ++i) {
      x = resnet_block_graph(graph, *layer->ptr(i), x, fold, name + "." + std::to_string(i));
    }
  }
  x = graph.node("Flatten", {graph.node("GlobalAveragePool", {x})}, {{"axis", int64_t{1}}});
  return linear(graph, x, *model.fc, "fc");
}

FamilyGraph resnet_onnx(GraphBuilder& graph, const ResNetImpl& model, const GraphRequest& request) {
  FamilyGraph written;
  written.input = {request.batch, request.channels, request.height, request.width};
  written.value = resnet_graph(graph, model, graph.input("images", written.input), request.simplify);
  written.output = {request.batch, model.options.classes()};
  return written;
}

}  // namespace trainer::onnx_export
