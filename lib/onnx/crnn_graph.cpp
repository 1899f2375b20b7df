#include <fmt/format.h>
#include <torch/torch.h>

#include "models/grcnn.h"
#include "models/ocr_resnet.h"
#include "onnx/crnn_graph.h"
#include "onnx/resnet_graph.h"
#include "onnx/torch_layers.h"

namespace trainer::onnx_export {
namespace {

bool is_norm(const torch::nn::Module& module) {
  return module.as<torch::nn::Conv2d>() == nullptr && module.as<torch::nn::ReLU>() == nullptr &&
         module.as<torch::nn::MaxPool2d>() == nullptr && module.as<GrclImpl>() == nullptr;
}

// A gated recurrent convolution layer unrolled over its steps, as GrclImpl::forward computes it;
// the recurrent convolutions' weights are written once per step.
std::string grcl_graph(GraphBuilder& graph, const GrclImpl& grcl, const std::string& input,
                       bool fold, const std::string& key) {
  const std::string gate_input =
      conv_norm(graph, input, *grcl.wgf_u, nullptr, fold, key + ".wgf_u");
  const std::string feed_forward =
      conv_norm(graph, input, *grcl.wf_u, nullptr, fold, key + ".wf_u");
  std::string x = graph.node(
      "Relu", {batch_norm(graph, feed_forward, *grcl.BN_x_init.ptr(), key + ".BN_x_init")});
  for (size_t i = 0; i < grcl.GRCL->size(); ++i) {
    const auto& unit = *grcl.GRCL->ptr<GrclUnitImpl>(i);
    const std::string unit_key = key + ".GRCL." + std::to_string(i) + ".";
    const auto norm = [&](const std::string& value, const torch::nn::AnyModule& layer,
                          const std::string& name) {
      return batch_norm(graph, value, *layer.ptr(), unit_key + name);
    };
    const std::string recurrent_gate =
        conv_norm(graph, x, *grcl.wgr_x, nullptr, fold, key + ".wgr_x");
    const std::string recurrent = conv_norm(graph, x, *grcl.wr_x, nullptr, fold, key + ".wr_x");
    const std::string gate =
        graph.node("Sigmoid", {graph.node("Add", {norm(gate_input, unit.BN_gfu, "BN_gfu"),
                                                  norm(recurrent_gate, unit.BN_grx, "BN_grx")})});
    const std::string gated =
        norm(graph.node("Mul", {norm(recurrent, unit.BN_rx, "BN_rx"), gate}), unit.BN_Gx, "BN_Gx");
    x = graph.node("Relu", {graph.node("Add", {norm(feed_forward, unit.BN_fu, "BN_fu"), gated})});
  }
  return x;
}

// EasyOCR's VGG or RCNN stack: convolutions (each with the norm after it, where there is one),
// ReLUs, max pools and GRCLs, in the order of FeatureExtraction.ConvNet.
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
    } else if (const auto* grcl = layer.as<GrclImpl>()) {
      x = grcl_graph(graph, *grcl, x, fold, key);
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
  if (const auto* rcnn = extractor.as<RcnnFeatureExtractorImpl>())
    return vgg_graph(graph, *rcnn->ConvNet, images, fold);
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
  if (options.prediction() == OcrPrediction::attn) {
    unsupported(
        "Prediction Attn: its decoder feeds each step's argmax to the next (an ONNX Loop), which "
        "OpenCV 4.6's DNN module does not run; export a recognizer with Prediction CTC");
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
