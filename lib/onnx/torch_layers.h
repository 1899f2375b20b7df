// LibTorch layers written as ONNX nodes, each computing what the layer's forward computes in
// evaluation mode. `key` is the layer's state-dict prefix: it names the weights in the file.
#pragma once
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/pooling.h>
#include <torch/nn/modules/rnn.h>

#include <string>

#include "onnx/graph_builder.h"

namespace trainer::onnx_export {

// A convolution and the 2-d norm after it (BatchNorm2d, FrozenBatchNorm2d or SyncBatchNorm2d, all
// of which normalise with running statistics in evaluation; nullptr: none). With `fold` (the
// export's `simplify`) the norm is folded into the convolution's weights and bias, otherwise it is
// a BatchNormalization node. A norm without running statistics (GroupNorm) is a UserError.
std::string conv_norm(GraphBuilder& graph, const std::string& x, const torch::nn::Conv2dImpl& conv,
                      const torch::nn::Module* norm, bool fold, const std::string& key);

// A 2-d norm on its own, not after a convolution (a BatchNormalization node, with `simplify` too);
// a norm without running statistics (GroupNorm) is a UserError.
std::string batch_norm(GraphBuilder& graph, const std::string& x, const torch::nn::Module& norm,
                       const std::string& key);

// y = x W^T + b over the last dimension of x (MatMul and Add; any leading dimensions).
std::string linear(GraphBuilder& graph, const std::string& x, const torch::nn::LinearImpl& layer,
                   const std::string& key);

// A one-layer bidirectional LSTM over time-major x [T, B, I] -> [T, B, 2H] (both directions'
// outputs side by side, as LibTorch's output).
std::string bidirectional_lstm(GraphBuilder& graph, const std::string& x, const torch::nn::LSTMImpl& lstm,
                               const std::string& key);

std::string max_pool(GraphBuilder& graph, const std::string& x, const torch::nn::MaxPool2dImpl& pool);

// x * sigmoid(x): ONNX has no SiLU operator in opsets 11-17.
std::string silu(GraphBuilder& graph, const std::string& x);

}  // namespace trainer::onnx_export
