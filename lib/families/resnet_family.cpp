// ResNet 18/34/50: image classification (models/resnet.h, onnx/resnet_graph.h).
#include "families/model_family.h"
#include "models/resnet.h"
#include "onnx/resnet_graph.h"

namespace trainer {

ModelFamily resnet_family() {
  ModelFamily family;
  family.names = {names_starting_with("resnet"), "resnet18/34/50", TaskKind::classify, "resnet18"};
  family.build = [](const ModelRequest& request) -> std::shared_ptr<torch::nn::Module> {
    return make_resnet(request.name, request.in_channels, request.classes, request.norm).ptr();
  };
  family.onnx_graph = onnx_export::graph_writer<ResNetImpl>(&onnx_export::resnet_onnx, "ResNet");
  return family;
}

}  // namespace trainer
