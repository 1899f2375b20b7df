#include <fmt/format.h>
#include <torch/torch.h>

#include "models/ocr_resnet.h"
#include "onnx/crnn_graph.h"
#include "onnx/resnet_graph.h"
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

// EasyOCR's ResNet feature extractor: the stem, then each stage's max pool, basic blocks and
// convolution, in OcrResNetImpl::forward's order.
std::string ocr_resnet_graph(GraphBuilder& graph, const OcrResNetImpl& net,
                             const std::string& images, bool fold) {
  const std::string prefix = "FeatureExtraction.ConvNet.";
  const auto conv_relu = [&](const std::string& x, const torch::nn::Conv2dImpl& conv,
                             const torch::nn::AnyModule& norm, const std::string& name) {
    return graph.node("Relu", {conv_norm(graph, x, conv, norm.ptr().get(), fold, prefix + name)});
  };
  const auto layer = [&](std::string x, const torch::nn::SequentialImpl& blocks,
                         const std::string& name) {
    for (size_t i = 0; i < blocks.size(); ++i) {
      x = resnet_block_graph(graph, *blocks.ptr(i), x, fold,
                             prefix + name + "." + std::to_string(i));
    }
    return x;
  };
  std::string x = conv_relu(images, *net.conv0_1, net.bn0_1, "conv0_1");
  x = conv_relu(x, *net.conv0_2, net.bn0_2, "conv0_2");
  x = conv_relu(layer(max_pool(graph, x, *net.maxpool1), *net.layer1, "layer1"), *net.conv1,
                net.bn1, "conv1");
  x = conv_relu(layer(max_pool(graph, x, *net.maxpool2), *net.layer2, "layer2"), *net.conv2,
                net.bn2, "conv2");
  x = conv_relu(layer(max_pool(graph, x, *net.maxpool3), *net.layer3, "layer3"), *net.conv3,
                net.bn3, "conv3");
  x = conv_relu(layer(x, *net.layer4, "layer4"), *net.conv4_1, net.bn4_1, "conv4_1");
  return conv_relu(x, *net.conv4_2, net.bn4_2, "conv4_2");
}

std::string feature_graph(GraphBuilder& graph, const CrnnImpl& model, const std::string& images,
                          bool fold) {
  const torch::nn::Module& extractor = *model.FeatureExtraction.ptr();
  if (const auto* resnet = extractor.as<ResNetFeatureExtractorImpl>()) {
    return ocr_resnet_graph(graph, *resnet->ConvNet, images, fold);
  }
  return vgg_graph(graph, *extractor.as<VggFeatureExtractorImpl>()->ConvNet, images, fold);
}

// The stages OpenCV 4.6's DNN module cannot run, named in the refusal.
void refuse_unsupported_stages(const CrnnOptions& options) {
  if (options.transformation() == OcrTransformation::tps) {
    unsupported(
        "Transformation TPS: its grid_sample (ONNX GridSample) is not run by OpenCV 4.6's DNN "
        "module, "
        "which runs exported recognizers; export a recognizer with Transformation None");
  }
  if (options.feature_extraction() == OcrFeatureExtraction::rcnn) {
    unsupported(
        "FeatureExtraction RCNN: its gated recurrent convolutions are not written as ONNX here; "
        "VGG and "
        "ResNet recognizers export");
  }
  if (options.prediction() == OcrPrediction::attn) {
    unsupported(
        "Prediction Attn: its decoder feeds each step's argmax to the next (an ONNX Loop), which "
        "OpenCV "
        "4.6's DNN module does not run; export a recognizer with Prediction CTC");
  }
}

}  // namespace

std::string crnn_graph(GraphBuilder& graph, const CrnnImpl& model, const std::string& images,
                       bool fold) {
  const std::string features = feature_graph(graph, model, images, fold);
  // The mean over the remaining height, then time-major [T, B, C] for ONNX's LSTM.
  const std::string columns =
      graph.node("ReduceMean", {features}, {{"axes", std::vector<int64_t>{2}}, {"keepdims", int64_t{0}}});
  std::string x = graph.node("Transpose", {columns}, {{"perm", std::vector<int64_t>{2, 0, 1}}});
  for (size_t i = 0; model.SequenceModeling && i < model.SequenceModeling->size(); ++i) {
    const auto& block = *model.SequenceModeling->ptr<BidirectionalLstmImpl>(i);
    const std::string key = "SequenceModeling." + std::to_string(i);
    x = linear(graph, bidirectional_lstm(graph, x, *block.rnn, key + ".rnn"), *block.linear, key + ".linear");
  }
  x = linear(graph, x, *model.Prediction, "Prediction");
  return graph.node("Transpose", {x}, {{"perm", std::vector<int64_t>{1, 0, 2}}});
}

FamilyGraph crnn_onnx(GraphBuilder& graph, const CrnnImpl& model, const GraphRequest& request) {
  refuse_unsupported_stages(model.options);
  const int64_t height = request.height, width = request.width;
  if (height < 32 || width < 8)
    unsupported(fmt::format("imgsz={},{}: the CRNN needs height >= 32 and width >= 8", height, width));
  const Dim columns = request.dynamic ? Dim{std::string("width")} : Dim{width};
  const Dim steps = request.dynamic ? Dim{std::string("steps")} : Dim{model.time_steps(width)};
  FamilyGraph written;
  written.input = {request.batch, request.channels, height, columns};
  written.value = crnn_graph(graph, model, graph.input("images", written.input), request.simplify);
  written.output = {request.batch, steps, model.options.classes()};
  return written;
}

}  // namespace trainer::onnx_export
