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

// min(1, max_norm / (norm + 1e-6)), the factor torch's clip_grad_norm_ multiplies by.
torch::Tensor clip_coefficient(const torch::Tensor& norm, double max_norm);

// Scales the grads in place by clip_coefficient(norm, max_norm) and returns the norm from before
// clipping. max_norm <= 0 only measures.
torch::Tensor clip_grad_norm_(const std::vector<torch::Tensor>& grads, double max_norm);

// What an update needs from still loss-scaled grads, from a single read of them (their norm):
// unscaling, the finite check and clipping all follow from it, and the optimizer applies
// `multiplier` while it reads the grads for the step. All device tensors, no host sync.
struct GradFactors {
  torch::Tensor norm;        ///< 0-dim: total norm of the unscaled grads, before clipping
  torch::Tensor found_inf;   ///< 0-dim float32: 1 when the norm is not finite
  torch::Tensor multiplier;  ///< 0-dim: inv_scale * clip coefficient (1 when max_norm <= 0)
};

// The scaled grads' L2 norm is non-finite iff an element is inf/NaN, or the norm overflows
// float32 (or its sum of squares does, where a kernel accumulates in float32: scaled norms past
// ~1.8e19); only absurd gradients get there, and they should be skipped too. So the norm is the
// finite check, and no pass of its own is needed. inv_scale is a power of two, so the unscaled
// norm and the multiplier are exactly what unscaling first and then clipping give.
GradFactors grad_factors(const std::vector<torch::Tensor>& scaled_grads,
                         const torch::Tensor& inv_scale, double max_norm);

}  // namespace trainer
