// YOLO11's position-sensitive attention (Ultralytics nn/modules/block.py Attention, PSABlock,
// C2PSA), with the Python attribute names so the state-dict keys are Ultralytics'
// (`m.0.attn.qkv.conv.weight`, `m.0.ffn.1.bn.bias`, ...).
#pragma once
#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "models/yolo_blocks.h"

namespace trainer::yolo {

// Multi-head self-attention over the H x W positions: one 1x1 Conv gives per head a query and key
// of head_dim / 2 channels and a value of head_dim; a depthwise 3x3 Conv of the values (pe) adds
// position; proj mixes the heads.
class AttentionImpl : public torch::nn::Cloneable<AttentionImpl> {
 public:
  AttentionImpl(int64_t channels, int64_t heads);

  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  int64_t channels, heads, head_dim, key_dim;
  Conv qkv{nullptr}, proj{nullptr}, pe{nullptr};
};
TORCH_MODULE(Attention);

// Attention, then a 1x1 feed-forward of twice the width, each with a residual.
class PSABlockImpl : public torch::nn::Cloneable<PSABlockImpl> {
 public:
  PSABlockImpl(int64_t channels, int64_t heads);

  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  int64_t channels, heads;
  Attention attn{nullptr};
  torch::nn::Sequential ffn{nullptr};
};
TORCH_MODULE(PSABlock);

// C3k2's `attn` inner block, Ultralytics' nn.Sequential(Bottleneck, PSABlock): a half-width
// Bottleneck, then a PSABlock of one head per 64 channels, as children "0" and "1".
class BottleneckPSAImpl : public torch::nn::Cloneable<BottleneckPSAImpl> {
 public:
  BottleneckPSAImpl(int64_t channels, bool shortcut);

  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  int64_t channels;
  bool shortcut;
  Bottleneck bottleneck{nullptr};
  PSABlock psa{nullptr};
};
TORCH_MODULE(BottleneckPSA);

// CSP wrapper: cv1 splits into two halves of in_channels * expansion, the PSABlocks (one head per
// 64 channels) refine the second, cv2 fuses both.
class C2PSAImpl : public torch::nn::Cloneable<C2PSAImpl> {
 public:
  C2PSAImpl(int64_t channels, int64_t repeats, double expansion = 0.5);

  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  int64_t channels, repeats;
  double expansion;
  Conv cv1{nullptr}, cv2{nullptr};
  torch::nn::Sequential m{nullptr};
};
TORCH_MODULE(C2PSA);

}  // namespace trainer::yolo
