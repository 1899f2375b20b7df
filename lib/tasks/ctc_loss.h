// The recognition loss: EasyOCR's CTCLoss(zero_infinity=True), optionally with label smoothing of
// every frame's target.
#pragma once
#include <ATen/core/Tensor.h>

namespace trainer {

// logits [N, T, C] (class 0 the blank), targets [N, S] and target_lengths [N]: CTC per sample
// divided by its target length (PyTorch's 'mean' before its batch mean), summed over the batch,
// computed in fp32. With `smoothing` ε > 0 each sample's loss is (1 - ε) CTC + ε Σ_t -mean_c log p_t(c)
// (before the division): the frames' cross-entropy to the uniform distribution, whose gradient
// turns CTC's p_t - γ_t (γ_t: the alignments' posterior over classes) into p_t - ((1 - ε) γ_t + ε / C).
at::Tensor ctc_loss_sum(const at::Tensor& logits, const at::Tensor& targets, const at::Tensor& target_lengths,
                        double smoothing = 0.0);

}  // namespace trainer
