// The building blocks of Ultralytics' YOLOv8 (nn/modules/conv.py and block.py). Each registers
// its children under the Python attribute names, so the state-dict keys are Ultralytics' own
// (`cv1.conv.weight`, `m.0.cv2.bn.running_var`, ...).
#pragma once
#include <torch/nn/cloneable.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/pooling.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <vector>

namespace trainer::yolo {

// Conv2d (no bias, padding k/2) -> BatchNorm2d -> SiLU.
class ConvImpl : public torch::nn::Cloneable<ConvImpl> {
 public:
  ConvImpl(int64_t in_channels, int64_t out_channels, int64_t kernel = 1, int64_t stride = 1);

  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  int64_t in_channels, out_channels, kernel, stride;
  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
};
TORCH_MODULE(Conv);

// Two 3x3 Convs at constant width with an optional residual: C2f's inner block (e = 1).
class BottleneckImpl : public torch::nn::Cloneable<BottleneckImpl> {
 public:
  BottleneckImpl(int64_t channels, bool shortcut);

  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  int64_t channels;
  bool shortcut;
  Conv cv1{nullptr}, cv2{nullptr};
};
TORCH_MODULE(Bottleneck);

// CSP block with two convolutions: cv1 splits into two halves, each Bottleneck refines the
// previous output, and cv2 fuses all (2 + n) pieces.
class C2fImpl : public torch::nn::Cloneable<C2fImpl> {
 public:
  C2fImpl(int64_t in_channels, int64_t out_channels, int64_t repeats, bool shortcut);

  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  int64_t in_channels, out_channels, repeats;
  bool shortcut;
  Conv cv1{nullptr}, cv2{nullptr};
  torch::nn::ModuleList m{nullptr};
};
TORCH_MODULE(C2f);

// Spatial pyramid pooling, fast: three chained 5x5 max pools give the 5/9/13 receptive fields.
class SPPFImpl : public torch::nn::Cloneable<SPPFImpl> {
 public:
  SPPFImpl(int64_t in_channels, int64_t out_channels, int64_t kernel = 5);

  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  int64_t in_channels, out_channels, kernel;
  Conv cv1{nullptr}, cv2{nullptr};
  torch::nn::MaxPool2d m{nullptr};
};
TORCH_MODULE(SPPF);

// Channel concatenation. It has no state; it exists so layer numbers (and keys) match Python.
class ConcatImpl : public torch::nn::Cloneable<ConcatImpl> {
 public:
  void reset() override {}
  torch::Tensor forward(const std::vector<torch::Tensor>& inputs);
};
TORCH_MODULE(Concat);

}  // namespace trainer::yolo
