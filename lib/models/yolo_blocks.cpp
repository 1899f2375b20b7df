#include "models/yolo_blocks.h"

namespace trainer::yolo {

ConvImpl::ConvImpl(int64_t in_channels, int64_t out_channels, int64_t kernel, int64_t stride)
    : in_channels(in_channels), out_channels(out_channels), kernel(kernel), stride(stride) {
  reset();
}

void ConvImpl::reset() {
  conv = register_module(
      "conv",
      torch::nn::Conv2d(
          torch::nn::Conv2dOptions(in_channels, out_channels, kernel).stride(stride).padding(kernel / 2).bias(false)));
  // Ultralytics' initialize_weights sets these on every BatchNorm2d; its Conv2d keeps the default init.
  bn =
      register_module("bn", torch::nn::BatchNorm2d(torch::nn::BatchNormOptions(out_channels).eps(1e-3).momentum(0.03)));
}

torch::Tensor ConvImpl::forward(const torch::Tensor& input) { return torch::silu(bn(conv(input))); }

BottleneckImpl::BottleneckImpl(int64_t channels, bool shortcut) : channels(channels), shortcut(shortcut) { reset(); }

void BottleneckImpl::reset() {
  cv1 = register_module("cv1", Conv(channels, channels, 3));
  cv2 = register_module("cv2", Conv(channels, channels, 3));
}

torch::Tensor BottleneckImpl::forward(const torch::Tensor& input) {
  torch::Tensor out = cv2(cv1(input));
  return shortcut ? input + out : out;
}

C2fImpl::C2fImpl(int64_t in_channels, int64_t out_channels, int64_t repeats, bool shortcut)
    : in_channels(in_channels), out_channels(out_channels), repeats(repeats), shortcut(shortcut) {
  reset();
}

void C2fImpl::reset() {
  const int64_t hidden = out_channels / 2;
  cv1 = register_module("cv1", Conv(in_channels, 2 * hidden));
  cv2 = register_module("cv2", Conv((2 + repeats) * hidden, out_channels));
  m = register_module("m", torch::nn::ModuleList());
  for (int64_t i = 0; i < repeats; ++i) m->push_back(Bottleneck(hidden, shortcut));
}

torch::Tensor C2fImpl::forward(const torch::Tensor& input) {
  std::vector<torch::Tensor> pieces = cv1(input).chunk(2, 1);
  for (const auto& block : *m) pieces.push_back(block->as<Bottleneck>()->forward(pieces.back()));
  return cv2(torch::cat(pieces, 1));
}

SPPFImpl::SPPFImpl(int64_t in_channels, int64_t out_channels, int64_t kernel)
    : in_channels(in_channels), out_channels(out_channels), kernel(kernel) {
  reset();
}

void SPPFImpl::reset() {
  const int64_t hidden = in_channels / 2;
  cv1 = register_module("cv1", Conv(in_channels, hidden));
  cv2 = register_module("cv2", Conv(4 * hidden, out_channels));
  m = register_module("m", torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(kernel).stride(1).padding(kernel / 2)));
}

torch::Tensor SPPFImpl::forward(const torch::Tensor& input) {
  std::vector<torch::Tensor> pieces{cv1(input)};
  for (int i = 0; i < 3; ++i) pieces.push_back(m(pieces.back()));
  return cv2(torch::cat(pieces, 1));
}

torch::Tensor ConcatImpl::forward(const std::vector<torch::Tensor>& inputs) { return torch::cat(inputs, 1); }

}  // namespace trainer::yolo
