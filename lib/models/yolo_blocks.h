// The building blocks of Ultralytics' YOLOv8 and YOLO11 (nn/modules/conv.py and block.py). Each
// registers its children under the Python attribute names, so the state-dict keys are Ultralytics'
// own (`cv1.conv.weight`, `m.0.cv2.bn.running_var`, ...).
#pragma once
#include <torch/nn/cloneable.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/pooling.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <vector>

namespace trainer::yolo {

// Conv2d (no bias, padding k/2, `groups`) -> BatchNorm2d -> SiLU (none without `activation`).
class ConvImpl : public torch::nn::Cloneable<ConvImpl> {
 public:
  ConvImpl(int64_t in_channels, int64_t out_channels, int64_t kernel = 1, int64_t stride = 1,
           int64_t groups = 1, bool activation = true);

  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  int64_t in_channels, out_channels, kernel, stride, groups;
  bool activation;
  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
};
TORCH_MODULE(Conv);

// Ultralytics' DWConv: a Conv grouped by gcd(in, out), depthwise when the widths are equal.
Conv DWConv(int64_t in_channels, int64_t out_channels, int64_t kernel);

// Two 3x3 Convs, channels -> channels * expansion -> channels, with an optional residual: C2f's
// inner block (expansion 1), C3k2's (0.5) and C3k's.
class BottleneckImpl : public torch::nn::Cloneable<BottleneckImpl> {
 public:
  BottleneckImpl(int64_t channels, bool shortcut, double expansion = 1.0);

  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  int64_t channels;
  bool shortcut;
  double expansion;
  Conv cv1{nullptr}, cv2{nullptr};
};
TORCH_MODULE(Bottleneck);

// CSP block with three convolutions and 3x3 bottlenecks (Ultralytics' C3k, YOLO11's inner block):
// cv1's branch through the bottlenecks and cv2's plain branch, fused by cv3.
class C3kImpl : public torch::nn::Cloneable<C3kImpl> {
 public:
  C3kImpl(int64_t in_channels, int64_t out_channels, int64_t repeats, bool shortcut,
          double expansion = 0.5);

  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  int64_t in_channels, out_channels, repeats;
  bool shortcut;
  double expansion;
  Conv cv1{nullptr}, cv2{nullptr}, cv3{nullptr};
  torch::nn::Sequential m{nullptr};
};
TORCH_MODULE(C3k);

// What refines each piece of a C2f: YOLOv8's full-width Bottleneck, or YOLO11's C3k2 choice of a
// half-width Bottleneck or a C3k of two.
enum class C2fInner { bottleneck, narrow_bottleneck, c3k };

// CSP block with two convolutions (Ultralytics' C2f, and C3k2 which subclasses it): cv1 splits
// into two halves of out_channels * expansion, each inner block refines the previous output, and
// cv2 fuses all (2 + n) pieces.
class C2fImpl : public torch::nn::Cloneable<C2fImpl> {
 public:
  C2fImpl(int64_t in_channels, int64_t out_channels, int64_t repeats, bool shortcut,
          C2fInner inner = C2fInner::bottleneck, double expansion = 0.5);

  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  int64_t in_channels, out_channels, repeats;
  bool shortcut;
  C2fInner inner;
  double expansion;
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
