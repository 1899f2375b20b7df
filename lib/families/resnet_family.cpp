// ResNet 18/34/50: image classification (models/resnet.h, onnx/resnet_graph.h).
#include "families/model_family.h"
#include "models/resnet.h"
#include "onnx/resnet_graph.h"

namespace trainer {

ModelFamily resnet_family() {
  ModelFamily family;
  family.names = {names_starting_with("resnet"), "resnet18/34/50", TaskKind::classify, "resnet18"};
  family.logits_model = [](const ModelRequest& request) {
    return bind_model<LogitsModel>(make_resnet(request.name, request.in_channels, request.classes, request.norm),
                                   request.in_channels, &onnx_export::resnet_onnx);
  };
  return family;
}

}  // namespace trainer
