#include "tasks/attn_text.h"

#include <torch/torch.h>

namespace trainer {
namespace {

constexpr int64_t kGo = 0;
constexpr int64_t kEnd = 1;

}  // namespace

at::Tensor attn_text(const at::Tensor& targets, const at::Tensor& target_lengths,
                     int64_t max_length) {
  const int64_t batch = targets.size(0), width = std::min<int64_t>(targets.size(1), max_length);
  const torch::Tensor lengths = target_lengths.to(torch::kLong).unsqueeze(1);
  const torch::Tensor positions =
      torch::arange(width, targets.options().dtype(torch::kLong)).unsqueeze(0);
  const torch::Tensor characters =
      torch::where(positions < lengths, targets.narrow(1, 0, width).to(torch::kLong) + 1,
                   torch::zeros({}, positions.options()));
  torch::Tensor text = torch::full({batch, max_length + 2}, kGo, positions.options());
  text.narrow(1, 1, width).copy_(characters);
  text.scatter_(1, lengths + 1, kEnd);
  return text;
}

at::Tensor attn_loss_sum(const at::Tensor& logits, const at::Tensor& text, double smoothing) {
  const int64_t batch = logits.size(0), steps = logits.size(1), classes = logits.size(2);
  const torch::Tensor target = text.narrow(1, 1, steps).reshape({-1});
  const torch::Tensor mean = torch::nn::functional::cross_entropy(
      logits.to(torch::kFloat).reshape({-1, classes}), target,
      torch::nn::functional::CrossEntropyFuncOptions().ignore_index(kGo).label_smoothing(
          smoothing));
  return mean * static_cast<double>(batch);
}

std::vector<DecodedText> attn_decode(const at::Tensor& logits, const Charset& charset) {
  const auto [best_probability, best_class] = torch::softmax(logits.to(torch::kFloat), 2).max(2);
  const torch::Tensor classes = best_class.to(torch::kCPU, torch::kLong).contiguous();
  const torch::Tensor probabilities = best_probability.to(torch::kCPU, torch::kDouble).contiguous();
  const int64_t batch = classes.size(0), steps = classes.size(1);
  std::vector<DecodedText> decoded(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b) {
    DecodedText& out = decoded[static_cast<size_t>(b)];
    out.confidence = 1.0;
    for (int64_t t = 0; t < steps; ++t) {
      const int64_t current = classes.data_ptr<int64_t>()[b * steps + t];
      if (current == kEnd) break;
      // [GO] is never a target; a model that predicts it anyway reads nothing there.
      if (current != kGo) out.text.push_back(charset.character(current - 1));
      out.confidence *= probabilities.data_ptr<double>()[b * steps + t];
    }
  }
  return decoded;
}

}  // namespace trainer
