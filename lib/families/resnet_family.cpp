// ResNet 18/34/50/101/152: image classification (models/resnet.h, onnx/resnet_graph.h).
#include "families/model_family.h"
#include "models/resnet.h"
#include "onnx/resnet_graph.h"

namespace trainer {

ModelFamily resnet_family() {
  ModelFamily family;
  family.names = {names_starting_with("resnet"), "resnet18/34/50/101/152", TaskKind::classify, "resnet18"};
  family.logits_model = [](const ModelRequest& request) {
    const ResNetOptions options = ResNetOptions()
                                      .in_channels(request.in_channels)
                                      .classes(request.classes)
                                      .norm(request.norm)
                                      .dropout(request.dropout)
                                      .drop_path(request.drop_path);
    return bind_model<LogitsModel>(make_resnet(request.name, options), request.in_channels,
                                   &onnx_export::resnet_onnx);
  };
  return family;
}

}  // namespace trainer
