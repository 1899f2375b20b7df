#include "onnx/torch_layers.h"

#include <torch/torch.h>
#include <torch/version.h>

#include "models/norm.h"
#include "models/sync_batch_norm.h"
#include "util/error.h"

namespace trainer::onnx_export {
namespace {

struct NormParameters {
  torch::Tensor weight, bias, mean, var;
  double eps = 1e-5;
};

template <typename Norm>
bool read_norm(const torch::nn::Module& module, NormParameters& out) {
  const auto* norm = dynamic_cast<const Norm*>(&module);
  if (norm == nullptr) return false;
  out = {norm->weight, norm->bias, norm->running_mean, norm->running_var, norm->options.eps()};
  return true;
}

NormParameters norm_parameters(const torch::nn::Module& module, const std::string& key) {
  NormParameters out;
  if (read_norm<torch::nn::BatchNorm2dImpl>(module, out) || read_norm<FrozenBatchNorm2dImpl>(module, out) ||
      read_norm<SyncBatchNorm2dImpl>(module, out)) {
    return out;
  }
  throw UserError("export format=onnx: " + key + " is a " + module.name() +
                  ", which has no running statistics to export; models trained with norm=gn cannot be exported "
                  "to ONNX (use norm=bn, frozen_bn or syncbn)");
}

std::vector<int64_t> pair(torch::ExpandingArray<2> values) { return {values->at(0), values->at(1)}; }

std::vector<int64_t> pads(const torch::nn::detail::ConvNdOptions<2>& options, const std::string& key) {
  // The option is a c10::variant in LibTorch 1.x and a std::variant in 2.x.
#if TORCH_VERSION_MAJOR >= 2
  const auto* padding = std::get_if<torch::ExpandingArray<2>>(&options.padding());
#else
  const auto* padding = c10::get_if<torch::ExpandingArray<2>>(&options.padding());
#endif
  if (padding == nullptr) throw std::logic_error("ONNX export: " + key + " has a padding mode, not sizes");
  return {(*padding)->at(0), (*padding)->at(1), (*padding)->at(0), (*padding)->at(1)};
}

std::string batch_norm_node(GraphBuilder& graph, const std::string& x,
                            const NormParameters& parameters, const std::string& key) {
  return graph.node("BatchNormalization",
                    {x, graph.constant(key + ".weight", parameters.weight),
                     graph.constant(key + ".bias", parameters.bias),
                     graph.constant(key + ".running_mean", parameters.mean),
                     graph.constant(key + ".running_var", parameters.var)},
                    {{"epsilon", static_cast<float>(parameters.eps)}});
}

// ONNX's LSTM gates are i, o, f, c; LibTorch's i, f, g (= c), o.
torch::Tensor onnx_gate_order(const torch::Tensor& rows) {
  const std::vector<torch::Tensor> gates = rows.chunk(4, 0);
  return torch::cat({gates[0], gates[3], gates[1], gates[2]}, 0);
}

}  // namespace

std::string conv_norm(GraphBuilder& graph, const std::string& x, const torch::nn::Conv2dImpl& conv,
                      const torch::nn::Module* norm, bool fold, const std::string& key) {
  torch::NoGradGuard no_grad;
  const auto& options = conv.options;
  torch::Tensor weight = conv.weight.to(torch::kFloat);
  torch::Tensor bias = conv.bias.defined() ? conv.bias.to(torch::kFloat) : torch::Tensor();
  std::optional<NormParameters> parameters;
  if (norm != nullptr) parameters = norm_parameters(*norm, key);
  if (parameters && fold) {
    // Folded in double: w' = w g / sqrt(v + eps), b' = beta + (b - mean) g / sqrt(v + eps).
    const torch::Tensor scale =
        parameters->weight.to(torch::kDouble) / (parameters->var.to(torch::kDouble) + parameters->eps).sqrt();
    const torch::Tensor conv_bias = bias.defined() ? bias.to(torch::kDouble) : torch::zeros_like(scale);
    weight = (weight.to(torch::kDouble) * scale.view({-1, 1, 1, 1})).to(torch::kFloat);
    bias = (parameters->bias.to(torch::kDouble) + (conv_bias - parameters->mean.to(torch::kDouble)) * scale)
               .to(torch::kFloat);
    parameters.reset();
  }
  std::vector<std::string> inputs{x, graph.constant(key + ".weight", weight)};
  if (bias.defined()) inputs.push_back(graph.constant(key + ".bias", bias));
  std::string y = graph.node("Conv", inputs,
                             {{"kernel_shape", pair(options.kernel_size())},
                              {"strides", pair(options.stride())},
                              {"pads", pads(options, key)},
                              {"dilations", pair(options.dilation())},
                              {"group", options.groups()}});
  if (!parameters) return y;
  return batch_norm_node(graph, y, *parameters, key + ".norm");
}

std::string batch_norm(GraphBuilder& graph, const std::string& x, const torch::nn::Module& norm,
                       const std::string& key) {
  return batch_norm_node(graph, x, norm_parameters(norm, key), key);
}

std::string linear(GraphBuilder& graph, const std::string& x, const torch::nn::LinearImpl& layer,
                   const std::string& key) {
  const std::string product = graph.node("MatMul", {x, graph.constant(key + ".weight", layer.weight.t())});
  if (!layer.bias.defined()) return product;
  return graph.node("Add", {product, graph.constant(key + ".bias", layer.bias)});
}

std::string bidirectional_lstm(GraphBuilder& graph, const std::string& x, const torch::nn::LSTMImpl& lstm,
                               const std::string& key) {
  const auto& options = lstm.options;
  if (!options.bidirectional() || options.num_layers() != 1 || !options.bias() || options.proj_size() != 0) {
    throw std::logic_error("ONNX export: " + key + " is not a one-layer bidirectional LSTM with biases");
  }
  const auto parameter = [&](const std::string& name) { return onnx_gate_order(lstm.named_parameters()[name]); };
  const auto both = [&](const std::string& name) {
    return torch::stack({parameter(name + "_l0"), parameter(name + "_l0_reverse")});
  };
  const torch::Tensor biases = torch::cat({both("bias_ih"), both("bias_hh")}, 1);
  // Y is [T, directions, B, H]; LibTorch's output puts the directions last: [T, B, 2H].
  const std::string y =
      graph.node("LSTM",
                 {x, graph.constant(key + ".weight_ih", both("weight_ih")),
                  graph.constant(key + ".weight_hh", both("weight_hh")), graph.constant(key + ".bias", biases)},
                 {{"hidden_size", options.hidden_size()}, {"direction", std::string("bidirectional")}});
  const std::string directions_last = graph.node("Transpose", {y}, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
  return graph.node("Reshape", {directions_last, graph.int64s(key + ".shape", {0, 0, -1})});
}

std::string max_pool(GraphBuilder& graph, const std::string& x, const torch::nn::MaxPool2dImpl& pool) {
  const auto& options = pool.options;
  const std::vector<int64_t> padding = pair(options.padding());
  return graph.node("MaxPool", {x},
                    {{"kernel_shape", pair(options.kernel_size())},
                     {"strides", pair(options.stride())},
                     {"pads", std::vector<int64_t>{padding[0], padding[1], padding[0], padding[1]}},
                     {"ceil_mode", static_cast<int64_t>(options.ceil_mode())}});
}

std::string silu(GraphBuilder& graph, const std::string& x) {
  return graph.node("Mul", {x, graph.node("Sigmoid", {x})});
}

}  // namespace trainer::onnx_export
