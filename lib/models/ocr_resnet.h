// EasyOCR's FeatureExtraction "ResNet" (trainer/modules/feature_extraction.py, FAN's): a ResNet of
// 1, 2, 5 and 3 basic blocks between plain convolutions, with EasyOCR's names
// (`ConvNet.conv0_1`, `ConvNet.layer1.0.conv1` …). Height /32 (then the 2x2 convolutions take one
// row), width /4 + 1 time steps.
#pragma once
#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/any.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/pooling.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "config/setting_types.h"

namespace trainer {

// EasyOCR's `ResNet` class: widths output_channel / 16, / 8 (the stem), then / 4, / 2, x1, x1.
class OcrResNetImpl : public torch::nn::Cloneable<OcrResNetImpl> {
 public:
  OcrResNetImpl(int64_t in_channels, int64_t output_channel, NormKind norm);
  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  int64_t in_channels, output_channel;
  NormKind norm;
  torch::nn::Conv2d conv0_1{nullptr}, conv0_2{nullptr}, conv1{nullptr}, conv2{nullptr},
      conv3{nullptr}, conv4_1{nullptr}, conv4_2{nullptr};
  torch::nn::AnyModule bn0_1, bn0_2, bn1, bn2, bn3, bn4_1, bn4_2;
  torch::nn::MaxPool2d maxpool1{nullptr}, maxpool2{nullptr}, maxpool3{nullptr};
  torch::nn::Sequential layer1{nullptr}, layer2{nullptr}, layer3{nullptr}, layer4{nullptr};
};
TORCH_MODULE(OcrResNet);

// `FeatureExtraction` holding the ResNet as `ConvNet`, as EasyOCR's ResNet_FeatureExtractor.
class ResNetFeatureExtractorImpl : public torch::nn::Cloneable<ResNetFeatureExtractorImpl> {
 public:
  ResNetFeatureExtractorImpl(int64_t in_channels, int64_t output_channel, NormKind norm);
  void reset() override;
  torch::Tensor forward(const torch::Tensor& input) { return ConvNet(input); }

  int64_t in_channels, output_channel;
  NormKind norm;
  OcrResNet ConvNet{nullptr};
};
TORCH_MODULE(ResNetFeatureExtractor);

}  // namespace trainer
