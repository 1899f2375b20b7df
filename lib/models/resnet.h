// ResNet 18/34/50/101/152 (v1.5: the stride sits on the bottleneck's 3x3) with torchvision's module names,
// shapes and initialisation, so torchvision state dicts load strictly and give the same logits.
#pragma once
#include <torch/nn/cloneable.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/any.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/pooling.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "config/setting_types.h"

namespace trainer {

struct ResNetOptions {
  TORCH_ARG(int64_t, depth) = 18;       ///< 18 | 34 | 50 | 101 | 152
  TORCH_ARG(int64_t, in_channels) = 3;  ///< input image channels, >= 1
  TORCH_ARG(int64_t, classes) = 1000;   ///< logits per image, >= 1
  TORCH_ARG(NormKind, norm) = NormKind::batch;
  // In training only, as timm's ResNet: dropout of the pooled features before fc (its drop_rate)
  // and stochastic depth of the residual branches, rising linearly from 0 at the first block to
  // drop_path at the last (its drop_path_rate). Neither adds parameters.
  TORCH_ARG(double, dropout) = 0.0;
  TORCH_ARG(double, drop_path) = 0.0;
};

class ResNetImpl : public torch::nn::Cloneable<ResNetImpl> {
 public:
  explicit ResNetImpl(const ResNetOptions& options = {});

  void reset() override;
  // [N, in_channels, H, W] -> [N, classes]; any H, W >= 1 (global average pooling).
  torch::Tensor forward(const torch::Tensor& input);

  ResNetOptions options;
  torch::nn::Conv2d conv1{nullptr};
  torch::nn::AnyModule bn1;
  torch::nn::ReLU relu{nullptr};
  torch::nn::MaxPool2d maxpool{nullptr};
  torch::nn::Sequential layer1{nullptr}, layer2{nullptr}, layer3{nullptr}, layer4{nullptr};
  torch::nn::AdaptiveAvgPool2d avgpool{nullptr};
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(ResNet);

// A layer of `blocks` of torchvision's BasicBlock (conv1, bn1, conv2, bn2, downsample), the first
// with `stride` and the 1x1 shortcut projection where the width or resolution changes; `inplanes`
// becomes `planes`. EasyOCR's ResNet feature extractor is made of the same blocks.
torch::nn::Sequential basic_block_layer(int64_t& inplanes, int64_t planes, int64_t blocks,
                                        int64_t stride, NormKind norm);

// The model names make_resnet accepts, for help texts and did-you-mean suggestions.
const std::vector<std::string>& resnet_names();

// `name` is one of resnet_names(), optionally with timm's weights tag (resnet50.a1_in1k: the tag
// names pretrained weights, the architecture is the same); anything else throws UserError. The
// depth comes from the name, everything else from `options`.
ResNet make_resnet(const std::string& name, ResNetOptions options);
ResNet make_resnet(const std::string& name, int64_t in_channels, int64_t classes, NormKind norm);

}  // namespace trainer
