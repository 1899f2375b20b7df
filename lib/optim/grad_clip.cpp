#include "optim/grad_clip.h"

#include <torch/utils.h>

namespace trainer {
namespace {

std::vector<torch::Tensor> defined_only(const std::vector<torch::Tensor>& grads) {
  std::vector<torch::Tensor> out;
  for (const torch::Tensor& grad : grads) {
    if (grad.defined()) out.push_back(grad);
  }
  return out;
}

}  // namespace

torch::Tensor total_grad_norm(const std::vector<torch::Tensor>& grads) {
  torch::NoGradGuard no_grad;
  const std::vector<torch::Tensor> present = defined_only(grads);
  if (present.empty()) return torch::zeros({});
  // fp16 norms overflow at 65504, so narrow grads get float32 norms and the total is taken in
  // float32 or the widest grad dtype.
  torch::ScalarType dtype = torch::kFloat;
  std::vector<torch::Tensor> wide;
  std::vector<torch::Tensor> norms;
  for (const torch::Tensor& grad : present) {
    dtype = torch::promote_types(dtype, grad.scalar_type());
    if (c10::elementSize(grad.scalar_type()) < 4) {
      norms.push_back(torch::linalg_vector_norm(grad, 2, c10::nullopt, false, torch::kFloat));
    } else {
      wide.push_back(grad);
    }
  }
  if (!wide.empty()) {
    for (const torch::Tensor& norm : at::_foreach_norm(wide)) norms.push_back(norm);
  }
  for (torch::Tensor& norm : norms) norm = norm.to(dtype);
  return torch::stack(norms).norm();
}

torch::Tensor clip_coefficient(const torch::Tensor& norm, double max_norm) {
  torch::NoGradGuard no_grad;
  return (max_norm / (norm + 1e-6)).clamp_max(1.0);
}

torch::Tensor clip_grad_norm_(const std::vector<torch::Tensor>& grads, double max_norm) {
  const torch::Tensor norm = total_grad_norm(grads);
  if (max_norm <= 0) return norm;
  torch::NoGradGuard no_grad;
  const torch::Tensor coef = clip_coefficient(norm, max_norm);
  for (const torch::Tensor& grad : defined_only(grads)) grad.mul_(coef);
  return norm;
}

GradFactors grad_factors(const std::vector<torch::Tensor>& scaled_grads,
                         const torch::Tensor& inv_scale, double max_norm) {
  torch::NoGradGuard no_grad;
  const torch::Tensor scaled_norm = total_grad_norm(scaled_grads);
  GradFactors factors;
  factors.found_inf = scaled_norm.isfinite().logical_not().to(inv_scale.options());
  // The norm keeps its dtype (float64 for double grads), as clip_grad_norm_'s does.
  factors.norm = scaled_norm * inv_scale;
  factors.multiplier =
      max_norm > 0 ? clip_coefficient(factors.norm, max_norm) * inv_scale : inv_scale;
  return factors;
}

}  // namespace trainer
