// Gradient-norm clipping that never waits for the device: the norm stays a tensor and the
// clip factor is applied even when it is 1, instead of branching on a host copy of the norm
// (torch::nn::utils::clip_grad_norm_ returns a double, which syncs).
#pragma once
#include <torch/types.h>

#include <vector>

namespace trainer {

// L2 norm over all defined grads, 0-dim (float32 or wider). Undefined grads are ignored; with
// none left the norm is a CPU zero.
torch::Tensor total_grad_norm(const std::vector<torch::Tensor>& grads);

// Scales the grads in place by min(1, max_norm / (norm + 1e-6)) and returns the norm from before
// clipping. max_norm <= 0 only measures.
torch::Tensor clip_grad_norm_(const std::vector<torch::Tensor>& grads, double max_norm);

}  // namespace trainer
