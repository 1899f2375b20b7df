#include "models/yolo_attention.h"

#include <algorithm>
#include <cmath>

namespace trainer::yolo {

AttentionImpl::AttentionImpl(int64_t channels, int64_t heads) : channels(channels), heads(heads) {
  reset();
}

void AttentionImpl::reset() {
  TORCH_CHECK(heads >= 1 && channels % heads == 0,
              "Attention needs channels divisible by heads, got ", channels, " and ", heads);
  head_dim = channels / heads;
  key_dim = head_dim / 2;  // Ultralytics' attn_ratio 0.5, int() of the product
  qkv = register_module("qkv", Conv(channels, channels + 2 * key_dim * heads, 1, 1, 1, false));
  proj = register_module("proj", Conv(channels, channels, 1, 1, 1, false));
  pe = register_module("pe", Conv(channels, channels, 3, 1, channels, false));
}

torch::Tensor AttentionImpl::forward(const torch::Tensor& input) {
  const int64_t batch = input.size(0), height = input.size(2), width = input.size(3);
  const std::vector<torch::Tensor> parts =
      qkv(input)
          .view({batch, heads, 2 * key_dim + head_dim, height * width})
          .split_with_sizes({key_dim, key_dim, head_dim}, 2);
  const torch::Tensor& query = parts[0];
  const torch::Tensor& key = parts[1];
  const torch::Tensor& value = parts[2];
  const torch::Tensor weights =
      (torch::matmul(query.transpose(-2, -1), key) * std::pow(static_cast<double>(key_dim), -0.5))
          .softmax(-1);
  const torch::Tensor attended =
      torch::matmul(value, weights.transpose(-2, -1)).view({batch, channels, height, width});
  return proj(attended + pe(value.reshape({batch, channels, height, width})));
}

PSABlockImpl::PSABlockImpl(int64_t channels, int64_t heads) : channels(channels), heads(heads) {
  reset();
}

void PSABlockImpl::reset() {
  attn = register_module("attn", Attention(channels, heads));
  ffn = register_module("ffn", torch::nn::Sequential(Conv(channels, 2 * channels),
                                                     Conv(2 * channels, channels, 1, 1, 1, false)));
}

torch::Tensor PSABlockImpl::forward(const torch::Tensor& input) {
  const torch::Tensor x = input + attn(input);
  return x + ffn->forward(x);
}

BottleneckPSAImpl::BottleneckPSAImpl(int64_t channels, bool shortcut)
    : channels(channels), shortcut(shortcut) {
  reset();
}

void BottleneckPSAImpl::reset() {
  bottleneck = register_module("0", Bottleneck(channels, shortcut, 0.5));
  psa = register_module("1", PSABlock(channels, std::max<int64_t>(channels / 64, 1)));
}

torch::Tensor BottleneckPSAImpl::forward(const torch::Tensor& input) {
  return psa(bottleneck(input));
}

C2PSAImpl::C2PSAImpl(int64_t channels, int64_t repeats, double expansion)
    : channels(channels), repeats(repeats), expansion(expansion) {
  reset();
}

void C2PSAImpl::reset() {
  const auto hidden = static_cast<int64_t>(static_cast<double>(channels) * expansion);
  cv1 = register_module("cv1", Conv(channels, 2 * hidden));
  cv2 = register_module("cv2", Conv(2 * hidden, channels));
  m = register_module("m", torch::nn::Sequential());
  for (int64_t i = 0; i < repeats; ++i) m->push_back(PSABlock(hidden, hidden / 64));
}

torch::Tensor C2PSAImpl::forward(const torch::Tensor& input) {
  const std::vector<torch::Tensor> halves = cv1(input).chunk(2, 1);
  return cv2(torch::cat({halves[0], m->forward(halves[1])}, 1));
}

}  // namespace trainer::yolo
