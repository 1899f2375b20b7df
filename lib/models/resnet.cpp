#include "models/resnet.h"

#include <torch/nn/init.h>
#include <torch/nn/modules/batchnorm.h>

#include <array>

#include "models/drop_path.h"
#include "models/norm.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

struct BlockOptions {
  BlockOptions(int64_t inplanes, int64_t planes, int64_t stride, NormKind norm)
      : inplanes_(inplanes), planes_(planes), stride_(stride), norm_(norm) {}
  TORCH_ARG(int64_t, inplanes);
  TORCH_ARG(int64_t, planes);
  TORCH_ARG(int64_t, stride);
  TORCH_ARG(NormKind, norm);
  TORCH_ARG(double, drop_path) = 0.0;  ///< stochastic depth of the residual branch, in training
};

torch::nn::Conv2d conv3x3(int64_t in, int64_t out, int64_t stride) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false));
}

torch::nn::Conv2d conv1x1(int64_t in, int64_t out, int64_t stride) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 1).stride(stride).bias(false));
}

// torchvision's shortcut projection, only where the block changes resolution or width.
torch::nn::Sequential make_downsample(const BlockOptions& options, int64_t expansion) {
  const int64_t out = options.planes() * expansion;
  if (options.stride() == 1 && options.inplanes() == out) return torch::nn::Sequential(nullptr);
  torch::nn::Sequential downsample;
  downsample->push_back(conv1x1(options.inplanes(), out, options.stride()));
  downsample->push_back(make_norm2d(options.norm(), out));
  return downsample;
}

// Registration order below is torchvision's: it fixes the state-dict key order.
class BasicBlockImpl : public torch::nn::Cloneable<BasicBlockImpl> {
 public:
  static constexpr int64_t expansion = 1;

  explicit BasicBlockImpl(const BlockOptions& options) : options(options) { reset(); }

  void reset() override {
    conv1 =
        register_module("conv1", conv3x3(options.inplanes(), options.planes(), options.stride()));
    bn1 = register_norm2d(*this, "bn1", options.norm(), options.planes());
    relu = register_module("relu", torch::nn::ReLU(torch::nn::ReLUOptions(/*inplace=*/true)));
    conv2 = register_module("conv2", conv3x3(options.planes(), options.planes(), 1));
    bn2 = register_norm2d(*this, "bn2", options.norm(), options.planes());
    downsample = make_downsample(options, expansion);
    if (downsample) register_module("downsample", downsample);
  }

  torch::Tensor forward(const torch::Tensor& input) {
    torch::Tensor out = relu(bn1.forward(conv1(input)));
    out = drop_path(bn2.forward(conv2(out)), options.drop_path(), is_training());
    out += downsample ? downsample->forward(input) : input;
    return relu(out);
  }

  BlockOptions options;
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::AnyModule bn1, bn2;
  torch::nn::ReLU relu{nullptr};
  torch::nn::Sequential downsample{nullptr};
};

class BottleneckImpl : public torch::nn::Cloneable<BottleneckImpl> {
 public:
  static constexpr int64_t expansion = 4;

  explicit BottleneckImpl(const BlockOptions& options) : options(options) { reset(); }

  void reset() override {
    const int64_t width = options.planes();
    const int64_t out = options.planes() * expansion;
    conv1 = register_module("conv1", conv1x1(options.inplanes(), width, 1));
    bn1 = register_norm2d(*this, "bn1", options.norm(), width);
    conv2 = register_module("conv2", conv3x3(width, width, options.stride()));
    bn2 = register_norm2d(*this, "bn2", options.norm(), width);
    conv3 = register_module("conv3", conv1x1(width, out, 1));
    bn3 = register_norm2d(*this, "bn3", options.norm(), out);
    relu = register_module("relu", torch::nn::ReLU(torch::nn::ReLUOptions(/*inplace=*/true)));
    downsample = make_downsample(options, expansion);
    if (downsample) register_module("downsample", downsample);
  }

  torch::Tensor forward(const torch::Tensor& input) {
    torch::Tensor out = relu(bn1.forward(conv1(input)));
    out = relu(bn2.forward(conv2(out)));
    out = drop_path(bn3.forward(conv3(out)), options.drop_path(), is_training());
    out += downsample ? downsample->forward(input) : input;
    return relu(out);
  }

  BlockOptions options;
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
  torch::nn::AnyModule bn1, bn2, bn3;
  torch::nn::ReLU relu{nullptr};
  torch::nn::Sequential downsample{nullptr};
};

struct Architecture {
  bool bottleneck;
  std::array<int64_t, 4> blocks;
};

Architecture architecture(int64_t depth) {
  switch (depth) {
    case 18:
      return {false, {2, 2, 2, 2}};
    case 34:
      return {false, {3, 4, 6, 3}};
    case 50:
      return {true, {3, 4, 6, 3}};
    case 101:
      return {true, {3, 4, 23, 3}};
    case 152:
      return {true, {3, 8, 36, 3}};
    default:
      throw UserError("ResNet depth " + std::to_string(depth) +
                      " is not supported; use 18, 34, 50, 101 or 152");
  }
}

// The stochastic depth of each block of the network in turn (timm's linear rule over all blocks).
struct DropPathSchedule {
  double rate = 0.0;
  int64_t blocks = 0;
  int64_t next = 0;
  double take() { return block_drop_path_rate(rate, next++, blocks); }
};

template <typename Block>
torch::nn::Sequential make_layer(int64_t& inplanes, int64_t planes, int64_t blocks, int64_t stride,
                                 NormKind norm, DropPathSchedule& drop_paths) {
  torch::nn::Sequential layer;
  for (int64_t i = 0; i < blocks; ++i) {
    const BlockOptions options =
        BlockOptions(inplanes, planes, i == 0 ? stride : 1, norm).drop_path(drop_paths.take());
    layer->push_back(std::make_shared<Block>(options));
    inplanes = planes * Block::expansion;
  }
  return layer;
}

}  // namespace

ResNetImpl::ResNetImpl(const ResNetOptions& options) : options(options) { reset(); }

void ResNetImpl::reset() {
  const Architecture arch = architecture(options.depth());
  if (options.in_channels() < 1 || options.classes() < 1) {
    throw UserError("ResNet needs in_channels >= 1 and classes >= 1, got " +
                    std::to_string(options.in_channels()) + " and " +
                    std::to_string(options.classes()));
  }
  const NormKind norm = options.norm();
  conv1 = register_module(
      "conv1",
      torch::nn::Conv2d(
          torch::nn::Conv2dOptions(options.in_channels(), 64, 7).stride(2).padding(3).bias(false)));
  bn1 = register_norm2d(*this, "bn1", norm, 64);
  relu = register_module("relu", torch::nn::ReLU(torch::nn::ReLUOptions(/*inplace=*/true)));
  maxpool = register_module(
      "maxpool", torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(3).stride(2).padding(1)));

  int64_t inplanes = 64;
  DropPathSchedule drop_paths{options.drop_path(), 0, 0};
  for (const int64_t blocks : arch.blocks) drop_paths.blocks += blocks;
  const auto layer = [&](int64_t planes, int64_t blocks, int64_t stride) {
    return arch.bottleneck ? make_layer<BottleneckImpl>(inplanes, planes, blocks, stride, norm, drop_paths)
                           : make_layer<BasicBlockImpl>(inplanes, planes, blocks, stride, norm, drop_paths);
  };
  layer1 = register_module("layer1", layer(64, arch.blocks[0], 1));
  layer2 = register_module("layer2", layer(128, arch.blocks[1], 2));
  layer3 = register_module("layer3", layer(256, arch.blocks[2], 2));
  layer4 = register_module("layer4", layer(512, arch.blocks[3], 2));
  avgpool = register_module(
      "avgpool", torch::nn::AdaptiveAvgPool2d(torch::nn::AdaptiveAvgPool2dOptions({1, 1})));
  fc = register_module("fc", torch::nn::Linear(inplanes, options.classes()));

  // torchvision's init. Norm layers already start at weight 1, bias 0, and Linear's default
  // init is the same as Python's, so only the convolutions need it.
  for (const auto& module : modules(/*include_self=*/false)) {
    if (auto* conv = module->as<torch::nn::Conv2d>()) {
      torch::nn::init::kaiming_normal_(conv->weight, 0.0, torch::kFanOut, torch::kReLU);
    }
  }
}

torch::Tensor ResNetImpl::forward(const torch::Tensor& input) {
  torch::Tensor x = maxpool(relu(bn1.forward(conv1(input))));
  x = layer4->forward(layer3->forward(layer2->forward(layer1->forward(x))));
  x = torch::flatten(avgpool(x), 1);
  // Skipped at 0 rather than passed through: a CUDA dropout draws its mask even at p = 0.
  if (options.dropout() > 0.0) x = torch::dropout(x, options.dropout(), is_training());
  return fc(x);
}

torch::nn::Sequential basic_block_layer(int64_t& inplanes, int64_t planes, int64_t blocks,
                                        int64_t stride, NormKind norm) {
  DropPathSchedule none;
  return make_layer<BasicBlockImpl>(inplanes, planes, blocks, stride, norm, none);
}

const std::vector<std::string>& resnet_names() {
  static const std::vector<std::string> names{"resnet18", "resnet34", "resnet50", "resnet101", "resnet152"};
  return names;
}

ResNet make_resnet(const std::string& name, ResNetOptions options) {
  const std::string architecture = name.substr(0, name.find('.'));
  const std::vector<std::string>& names = resnet_names();
  if (std::find(names.begin(), names.end(), architecture) == names.end()) {
    throw UserError("unknown model '" + name + "'" + did_you_mean(architecture, names) + "; choose one of " +
                    join(names, ", ") + " (timm's NAME.TAG names the weights: resnet50.a1_in1k is resnet50)");
  }
  return ResNet(options.depth(std::stoll(architecture.substr(std::string("resnet").size()))));
}

ResNet make_resnet(const std::string& name, int64_t in_channels, int64_t classes, NormKind norm) {
  return make_resnet(name, ResNetOptions().in_channels(in_channels).classes(classes).norm(norm));
}

}  // namespace trainer
