#include "tasks/ctc_decoder.h"

namespace trainer {

std::vector<DecodedText> greedy_decode(const at::Tensor& logits, const Charset& charset) {
  const auto [best_probability, best_class] = torch::softmax(logits.to(torch::kFloat), 2).max(2);
  const torch::Tensor classes = best_class.to(torch::kCPU, torch::kLong).contiguous();
  const torch::Tensor confidence = best_probability.to(torch::kDouble).prod(1).to(torch::kCPU).contiguous();
  const int64_t batch = classes.size(0), steps = classes.size(1);
  const int64_t* best = classes.data_ptr<int64_t>();
  std::vector<DecodedText> decoded(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b) {
    DecodedText& out = decoded[static_cast<size_t>(b)];
    int64_t previous = 0;
    for (int64_t t = 0; t < steps; ++t) {
      const int64_t current = best[b * steps + t];
      if (current != 0 && current != previous) out.text.push_back(charset.character(current));
      previous = current;
    }
    out.confidence = confidence.data_ptr<double>()[b];
  }
  return decoded;
}

}  // namespace trainer
