#include "models/ocr_resnet.h"

#include "models/norm.h"
#include "models/resnet.h"

namespace trainer {
namespace {

torch::nn::Conv2d conv(int64_t in, int64_t out, torch::ExpandingArray<2> kernel,
                       torch::ExpandingArray<2> stride, torch::ExpandingArray<2> padding) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(padding).bias(false));
}

torch::nn::MaxPool2d max_pool(torch::ExpandingArray<2> stride, torch::ExpandingArray<2> padding) {
  return torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2).stride(stride).padding(padding));
}

}  // namespace

OcrResNetImpl::OcrResNetImpl(int64_t in_channels, int64_t output_channel, NormKind norm)
    : in_channels(in_channels), output_channel(output_channel), norm(norm) {
  reset();
}

void OcrResNetImpl::reset() {
  // Registration follows EasyOCR's __init__, which fixes the state-dict key order.
  const int64_t block[4] = {output_channel / 4, output_channel / 2, output_channel, output_channel};
  int64_t inplanes = output_channel / 8;
  conv0_1 = register_module("conv0_1", conv(in_channels, output_channel / 16, 3, 1, 1));
  bn0_1 = register_norm2d(*this, "bn0_1", norm, output_channel / 16);
  conv0_2 = register_module("conv0_2", conv(output_channel / 16, inplanes, 3, 1, 1));
  bn0_2 = register_norm2d(*this, "bn0_2", norm, inplanes);
  maxpool1 = register_module("maxpool1", max_pool(2, 0));
  layer1 = register_module("layer1", basic_block_layer(inplanes, block[0], 1, 1, norm));
  conv1 = register_module("conv1", conv(block[0], block[0], 3, 1, 1));
  bn1 = register_norm2d(*this, "bn1", norm, block[0]);
  maxpool2 = register_module("maxpool2", max_pool(2, 0));
  layer2 = register_module("layer2", basic_block_layer(inplanes, block[1], 2, 1, norm));
  conv2 = register_module("conv2", conv(block[1], block[1], 3, 1, 1));
  bn2 = register_norm2d(*this, "bn2", norm, block[1]);
  maxpool3 = register_module("maxpool3", max_pool({2, 1}, {0, 1}));
  layer3 = register_module("layer3", basic_block_layer(inplanes, block[2], 5, 1, norm));
  conv3 = register_module("conv3", conv(block[2], block[2], 3, 1, 1));
  bn3 = register_norm2d(*this, "bn3", norm, block[2]);
  layer4 = register_module("layer4", basic_block_layer(inplanes, block[3], 3, 1, norm));
  conv4_1 = register_module("conv4_1", conv(block[3], block[3], 2, {2, 1}, {0, 1}));
  bn4_1 = register_norm2d(*this, "bn4_1", norm, block[3]);
  conv4_2 = register_module("conv4_2", conv(block[3], block[3], 2, 1, 0));
  bn4_2 = register_norm2d(*this, "bn4_2", norm, block[3]);
}

torch::Tensor OcrResNetImpl::forward(const torch::Tensor& input) {
  const auto relu = [](const torch::Tensor& x) { return torch::relu(x); };
  torch::Tensor x = relu(bn0_1.forward(conv0_1(input)));
  x = relu(bn0_2.forward(conv0_2(x)));
  x = relu(bn1.forward(conv1(layer1->forward(maxpool1(x)))));
  x = relu(bn2.forward(conv2(layer2->forward(maxpool2(x)))));
  x = relu(bn3.forward(conv3(layer3->forward(maxpool3(x)))));
  x = relu(bn4_1.forward(conv4_1(layer4->forward(x))));
  return relu(bn4_2.forward(conv4_2(x)));
}

ResNetFeatureExtractorImpl::ResNetFeatureExtractorImpl(int64_t in_channels, int64_t output_channel,
                                                       NormKind norm)
    : in_channels(in_channels), output_channel(output_channel), norm(norm) {
  reset();
}

void ResNetFeatureExtractorImpl::reset() {
  ConvNet = register_module("ConvNet", OcrResNet(in_channels, output_channel, norm));
}

}  // namespace trainer
