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

// Conv2d (no bias, `groups`, `padding`, by default Ultralytics' autopad: the dilated kernel's
// half) -> BatchNorm2d -> SiLU (none without `activation`).
class ConvImpl : public torch::nn::Cloneable<ConvImpl> {
 public:
  ConvImpl(int64_t in_channels, int64_t out_channels, int64_t kernel = 1, int64_t stride = 1,
           int64_t groups = 1, bool activation = true, int64_t padding = kAutoPadding,
           int64_t dilation = 1);

  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  static constexpr int64_t kAutoPadding = -1;
  int64_t in_channels, out_channels, kernel, stride, groups;
  bool activation;
  int64_t padding, dilation;
  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
};
TORCH_MODULE(Conv);

// Ultralytics' DWConv: a Conv grouped by gcd(in, out), depthwise when the widths are equal.
Conv DWConv(int64_t in_channels, int64_t out_channels, int64_t kernel);

// Two Convs, channels -> channels * expansion -> channels, with an optional residual: C2f's
// inner block (3x3 twice, expansion 1), C3k2's (0.5), C3k's, and C3's (a 1x1, then a 3x3).
class BottleneckImpl : public torch::nn::Cloneable<BottleneckImpl> {
 public:
  BottleneckImpl(int64_t channels, bool shortcut, double expansion = 1.0, int64_t first_kernel = 3);

  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  int64_t channels;
  bool shortcut;
  double expansion;
  int64_t first_kernel;
  Conv cv1{nullptr}, cv2{nullptr};
};
TORCH_MODULE(Bottleneck);

// CSP block with three convolutions (Ultralytics' C3 of YOLOv5, and its subclass C3k of YOLO11's
// inner blocks): cv1's branch through the bottlenecks (1x1 then 3x3 in C3, 3x3 twice in C3k) and
// cv2's plain branch, fused by cv3.
class C3Impl : public torch::nn::Cloneable<C3Impl> {
 public:
  C3Impl(int64_t in_channels, int64_t out_channels, int64_t repeats, bool shortcut,
         int64_t bottleneck_first_kernel, double expansion = 0.5);

  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  int64_t in_channels, out_channels, repeats;
  bool shortcut;
  int64_t bottleneck_first_kernel;
  double expansion;
  Conv cv1{nullptr}, cv2{nullptr}, cv3{nullptr};
  torch::nn::Sequential m{nullptr};
};
TORCH_MODULE(C3);

// What refines each piece of a C2f: YOLOv8's full-width Bottleneck, or C3k2's choice of a
// half-width Bottleneck, a C3k of two, or (YOLO26's `attn`) a Bottleneck then a PSABlock.
enum class C2fInner { bottleneck, narrow_bottleneck, c3k, attention };

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

// Spatial pyramid pooling, fast: `pools` chained max pools (three 5x5: the 5/9/13 receptive
// fields) concatenated, with YOLO26's optional residual. YOLO26 leaves cv1 unactivated;
// Ultralytics keeps the activation for rows that omit the pools and shortcut (pre-YOLO26 files).
class SPPFImpl : public torch::nn::Cloneable<SPPFImpl> {
 public:
  SPPFImpl(int64_t in_channels, int64_t out_channels, int64_t kernel = 5, int64_t pools = 3,
           bool shortcut = false, bool cv1_activation = true);

  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  int64_t in_channels, out_channels, kernel, pools;
  bool shortcut, cv1_activation;
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
