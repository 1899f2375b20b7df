// The building blocks of Ultralytics' YOLO models (models/yolo_blocks.h, yolo_attention.h) as ONNX
// nodes, each computing the block's evaluation forward. `key` is the block's state-dict prefix
// (`model.4`), which names its weights in the file; `fold` folds norms into convolutions.
#pragma once
#include <torch/nn/module.h>

#include <cstdint>
#include <string>

#include "models/yolo_blocks.h"
#include "onnx/graph_builder.h"

namespace trainer::onnx_export {

std::string conv_graph(GraphBuilder& graph, const yolo::ConvImpl& conv, const std::string& x, bool fold,
                       const std::string& key);

// A chain of Convs and biased Conv2ds, nested in containers or not (Detect's branches, PSABlock's
// feed-forward), applied in child order.
std::string chain_graph(GraphBuilder& graph, const torch::nn::Module& chain, const std::string& x, bool fold,
                        const std::string& key);

std::string bottleneck_graph(GraphBuilder& graph, const yolo::BottleneckImpl& block, const std::string& x, bool fold,
                             const std::string& key);

// C2f and C3k2 (with any of its inner blocks, on a feature map of height x width cells), C3 and C3k.
std::string c2f_graph(GraphBuilder& graph, const yolo::C2fImpl& block, const std::string& x, bool fold,
                      const std::string& key, int64_t height, int64_t width);
std::string c3_graph(GraphBuilder& graph, const yolo::C3Impl& block, const std::string& x, bool fold,
                     const std::string& key);

std::string sppf_graph(GraphBuilder& graph, const yolo::SPPFImpl& block, const std::string& x, bool fold,
                       const std::string& key);

// Nearest-neighbour upsampling by 2, as nn.Upsample(None, 2, "nearest").
std::string upsample_graph(GraphBuilder& graph, const std::string& x);

// x[start:end] along `axis` (Slice, whose inputs are the same in opsets 11 to 17).
std::string slice(GraphBuilder& graph, const std::string& x, int64_t axis, int64_t start, int64_t end);

}  // namespace trainer::onnx_export
