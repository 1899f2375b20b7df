#include <fmt/format.h>
#include <torch/torch.h>

#include "onnx/crnn_graph.h"
#include "onnx/torch_layers.h"

namespace trainer::onnx_export {
namespace {

bool is_norm(const torch::nn::Module& module) {
  return module.as<torch::nn::Conv2d>() == nullptr && module.as<torch::nn::ReLU>() == nullptr &&
         module.as<torch::nn::MaxPool2d>() == nullptr;
}

// EasyOCR's VGG stack: convolutions (each with the norm after it, where there is one), ReLUs and
// max pools, in the order of FeatureExtraction.ConvNet.
std::string vgg_graph(GraphBuilder& graph, const torch::nn::SequentialImpl& layers, const std::string& images,
                      bool fold) {
  std::string x = images;
  for (size_t i = 0; i < layers.size(); ++i) {
    const torch::nn::Module& layer = *layers.ptr(i);
    const std::string key = "FeatureExtraction.ConvNet." + std::to_string(i);
    if (const auto* conv = layer.as<torch::nn::Conv2d>()) {
      const bool normed = i + 1 < layers.size() && is_norm(*layers.ptr(i + 1));
      x = conv_norm(graph, x, *conv, normed ? layers.ptr(i + 1).get() : nullptr, fold, key);
      if (normed) ++i;
    } else if (layer.as<torch::nn::ReLU>() != nullptr) {
      x = graph.node("Relu", {x});
    } else {
      x = max_pool(graph, x, *layer.as<torch::nn::MaxPool2d>());
    }
  }
  return x;
}

}  // namespace

std::string crnn_graph(GraphBuilder& graph, const CrnnImpl& model, const std::string& images, bool fold) {
  const std::string features = vgg_graph(graph, *model.FeatureExtraction->ConvNet, images, fold);
  // The mean over the remaining height, then time-major [T, B, C] for ONNX's LSTM.
  const std::string columns =
      graph.node("ReduceMean", {features}, {{"axes", std::vector<int64_t>{2}}, {"keepdims", int64_t{0}}});
  std::string x = graph.node("Transpose", {columns}, {{"perm", std::vector<int64_t>{2, 0, 1}}});
  for (size_t i = 0; i < model.SequenceModeling->size(); ++i) {
    const auto& block = *model.SequenceModeling->ptr<BidirectionalLstmImpl>(i);
    const std::string key = "SequenceModeling." + std::to_string(i);
    x = linear(graph, bidirectional_lstm(graph, x, *block.rnn, key + ".rnn"), *block.linear, key + ".linear");
  }
  x = linear(graph, x, *model.Prediction, "Prediction");
  return graph.node("Transpose", {x}, {{"perm", std::vector<int64_t>{1, 0, 2}}});
}

FamilyGraph crnn_onnx(GraphBuilder& graph, const CrnnImpl& model, const GraphRequest& request) {
  const int64_t height = request.height, width = request.width;
  if (height < 32 || width < 8)
    unsupported(fmt::format("imgsz={},{}: the CRNN needs height >= 32 and width >= 8", height, width));
  const Dim columns = request.dynamic ? Dim{std::string("width")} : Dim{width};
  const Dim steps = request.dynamic ? Dim{std::string("steps")} : Dim{CrnnImpl::time_steps(width)};
  FamilyGraph written;
  written.input = {request.batch, request.channels, height, columns};
  written.value = crnn_graph(graph, model, graph.input("images", written.input), request.simplify);
  written.output = {request.batch, steps, model.options.classes()};
  return written;
}

}  // namespace trainer::onnx_export
