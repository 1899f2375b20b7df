// ResNet as an ONNX graph: [B, C, H, W] -> logits [B, classes].
#pragma once
#include <string>

#include "models/resnet.h"
#include "onnx/graph_builder.h"
#include "onnx/onnx_export.h"

namespace trainer::onnx_export {

// torchvision's BasicBlock or Bottleneck `block` (`key` its state-dict prefix) on x.
std::string resnet_block_graph(GraphBuilder& graph, const torch::nn::Module& block,
                               const std::string& x, bool fold, const std::string& key);

// The evaluation forward from the graph input `images`; returns the output value. `fold` folds
// norms into convolutions.
std::string resnet_graph(GraphBuilder& graph, const ResNetImpl& model, const std::string& images,
                         bool fold);

// The family's graph writer (any H, W).
FamilyGraph resnet_onnx(GraphBuilder& graph, const ResNetImpl& model, const GraphRequest& request);

}  // namespace trainer::onnx_export
