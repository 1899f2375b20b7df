#include "tasks/ctc_loss.h"

#include <ATen/ATen.h>

namespace trainer {

at::Tensor ctc_loss_sum(const at::Tensor& logits, const at::Tensor& targets, const at::Tensor& target_lengths,
                        double smoothing) {
  // fp32 even under autocast: log-probabilities of long sequences underflow in half precision.
  const at::Tensor log_probs = at::log_softmax(logits.to(at::kFloat), 2).permute({1, 0, 2});
  const at::Tensor input_lengths =
      at::full({logits.size(0)}, logits.size(1), at::TensorOptions().dtype(at::kLong).device(logits.device()));
  at::Tensor per_sample = at::ctc_loss(log_probs, targets, input_lengths, target_lengths, /*blank=*/0,
                                       at::Reduction::None, /*zero_infinity=*/true);
  if (smoothing > 0) per_sample = (1 - smoothing) * per_sample - smoothing * log_probs.mean(2).sum(0);
  return (per_sample / target_lengths.clamp_min(1).to(at::kFloat)).sum();
}

}  // namespace trainer
