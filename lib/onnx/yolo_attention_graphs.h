// YOLO11's position-sensitive attention (models/yolo_attention.h) as ONNX nodes, on a feature map
// of height x width cells (the reshapes need its size). `key` is the block's state-dict prefix.
#pragma once
#include <cstdint>
#include <string>

#include "models/yolo_attention.h"
#include "onnx/graph_builder.h"

namespace trainer::onnx_export {

// YOLO11's attention blocks on a feature map of height x width cells.
std::string attention_graph(GraphBuilder& graph, const yolo::AttentionImpl& block, const std::string& x, bool fold,
                            const std::string& key, int64_t height, int64_t width);
std::string psa_block_graph(GraphBuilder& graph, const yolo::PSABlockImpl& block, const std::string& x, bool fold,
                            const std::string& key, int64_t height, int64_t width);
std::string c2psa_graph(GraphBuilder& graph, const yolo::C2PSAImpl& block, const std::string& x, bool fold,
                        const std::string& key, int64_t height, int64_t width);

}  // namespace trainer::onnx_export
