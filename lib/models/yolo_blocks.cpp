#include "models/yolo_blocks.h"

#include "models/yolo_attention.h"

#include <numeric>

namespace trainer::yolo {

ConvImpl::ConvImpl(int64_t in_channels, int64_t out_channels, int64_t kernel, int64_t stride,
                   int64_t groups, bool activation, int64_t padding, int64_t dilation)
    : in_channels(in_channels),
      out_channels(out_channels),
      kernel(kernel),
      stride(stride),
      groups(groups),
      activation(activation),
      padding(padding),
      dilation(dilation) {
  reset();
}

void ConvImpl::reset() {
  // autopad: half the dilated kernel, d * (k - 1) + 1.
  const int64_t pad = padding == kAutoPadding ? (dilation * (kernel - 1) + 1) / 2 : padding;
  conv = register_module(
      "conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(in_channels, out_channels, kernel)
                                    .stride(stride)
                                    .padding(pad)
                                    .dilation(dilation)
                                    .groups(groups)
                                    .bias(false)));
  // Ultralytics' initialize_weights sets these on every BatchNorm2d; its Conv2d keeps the default
  // init.
  bn = register_module(
      "bn",
      torch::nn::BatchNorm2d(torch::nn::BatchNormOptions(out_channels).eps(1e-3).momentum(0.03)));
}

torch::Tensor ConvImpl::forward(const torch::Tensor& input) {
  const torch::Tensor normed = bn(conv(input));
  return activation ? torch::silu(normed) : normed;
}

Conv DWConv(int64_t in_channels, int64_t out_channels, int64_t kernel) {
  return Conv(in_channels, out_channels, kernel, 1, std::gcd(in_channels, out_channels));
}

BottleneckImpl::BottleneckImpl(int64_t channels, bool shortcut, double expansion,
                               int64_t first_kernel)
    : channels(channels), shortcut(shortcut), expansion(expansion), first_kernel(first_kernel) {
  reset();
}

void BottleneckImpl::reset() {
  const auto hidden = static_cast<int64_t>(static_cast<double>(channels) * expansion);
  cv1 = register_module("cv1", Conv(channels, hidden, first_kernel));
  cv2 = register_module("cv2", Conv(hidden, channels, 3));
}

torch::Tensor BottleneckImpl::forward(const torch::Tensor& input) {
  torch::Tensor out = cv2(cv1(input));
  return shortcut ? input + out : out;
}

C3Impl::C3Impl(int64_t in_channels, int64_t out_channels, int64_t repeats, bool shortcut,
               int64_t bottleneck_first_kernel, double expansion)
    : in_channels(in_channels),
      out_channels(out_channels),
      repeats(repeats),
      shortcut(shortcut),
      bottleneck_first_kernel(bottleneck_first_kernel),
      expansion(expansion) {
  reset();
}

void C3Impl::reset() {
  const auto hidden = static_cast<int64_t>(static_cast<double>(out_channels) * expansion);
  cv1 = register_module("cv1", Conv(in_channels, hidden));
  cv2 = register_module("cv2", Conv(in_channels, hidden));
  cv3 = register_module("cv3", Conv(2 * hidden, out_channels));
  m = register_module("m", torch::nn::Sequential());
  for (int64_t i = 0; i < repeats; ++i) {
    m->push_back(Bottleneck(hidden, shortcut, 1.0, bottleneck_first_kernel));
  }
}

torch::Tensor C3Impl::forward(const torch::Tensor& input) {
  return cv3(torch::cat({m->forward(cv1(input)), cv2(input)}, 1));
}

C2fImpl::C2fImpl(int64_t in_channels, int64_t out_channels, int64_t repeats, bool shortcut,
                 C2fInner inner, double expansion)
    : in_channels(in_channels),
      out_channels(out_channels),
      repeats(repeats),
      shortcut(shortcut),
      inner(inner),
      expansion(expansion) {
  reset();
}

void C2fImpl::reset() {
  // int(c2 * e), as Python truncates.
  const auto hidden = static_cast<int64_t>(static_cast<double>(out_channels) * expansion);
  cv1 = register_module("cv1", Conv(in_channels, 2 * hidden));
  cv2 = register_module("cv2", Conv((2 + repeats) * hidden, out_channels));
  m = register_module("m", torch::nn::ModuleList());
  for (int64_t i = 0; i < repeats; ++i) {
    switch (inner) {
      case C2fInner::bottleneck:
        m->push_back(Bottleneck(hidden, shortcut));
        break;
      case C2fInner::narrow_bottleneck:
        m->push_back(Bottleneck(hidden, shortcut, 0.5));
        break;
      case C2fInner::c3k:
        m->push_back(C3(hidden, hidden, 2, shortcut, 3));
        break;
      case C2fInner::attention:
        m->push_back(BottleneckPSA(hidden, shortcut));
        break;
    }
  }
}

torch::Tensor C2fImpl::forward(const torch::Tensor& input) {
  std::vector<torch::Tensor> pieces = cv1(input).chunk(2, 1);
  for (size_t i = 0; i < m->size(); ++i) {
    const torch::Tensor& last = pieces.back();
    switch (inner) {
      case C2fInner::c3k:
        pieces.push_back(m->ptr<C3Impl>(i)->forward(last));
        break;
      case C2fInner::attention:
        pieces.push_back(m->ptr<BottleneckPSAImpl>(i)->forward(last));
        break;
      default:
        pieces.push_back(m->ptr<BottleneckImpl>(i)->forward(last));
    }
  }
  return cv2(torch::cat(pieces, 1));
}

SPPFImpl::SPPFImpl(int64_t in_channels, int64_t out_channels, int64_t kernel, int64_t pools,
                   bool shortcut, bool cv1_activation)
    : in_channels(in_channels),
      out_channels(out_channels),
      kernel(kernel),
      pools(pools),
      shortcut(shortcut),
      cv1_activation(cv1_activation) {
  reset();
}

void SPPFImpl::reset() {
  const int64_t hidden = in_channels / 2;
  cv1 = register_module("cv1", Conv(in_channels, hidden, 1, 1, 1, cv1_activation));
  cv2 = register_module("cv2", Conv((pools + 1) * hidden, out_channels));
  m = register_module(
      "m", torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(kernel).stride(1).padding(kernel / 2)));
}

torch::Tensor SPPFImpl::forward(const torch::Tensor& input) {
  std::vector<torch::Tensor> pieces{cv1(input)};
  for (int64_t i = 0; i < pools; ++i) pieces.push_back(m(pieces.back()));
  torch::Tensor out = cv2(torch::cat(pieces, 1));
  // Ultralytics adds the input only where the widths agree.
  return shortcut && in_channels == out_channels ? out + input : out;
}

torch::Tensor ConcatImpl::forward(const std::vector<torch::Tensor>& inputs) {
  return torch::cat(inputs, 1);
}

}  // namespace trainer::yolo
