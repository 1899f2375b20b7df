#include "optim/muon.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

namespace trainer {

torch::Tensor newton_schulz_orthogonalised(const torch::Tensor& matrix) {
  TORCH_CHECK(matrix.dim() == 2, "Newton-Schulz takes a matrix, got ", matrix.sizes());
  constexpr double a = 3.4445, b = -4.7750, c = 2.0315, eps = 1e-7;
  torch::Tensor x = matrix.to(torch::kBFloat16);
  x = x / (x.norm() + eps);
  const bool tall = matrix.size(0) > matrix.size(1);
  if (tall) x = x.t();
  for (int step = 0; step < 5; ++step) {
    // In Python's order, `b * A + c * A @ A` is b * A + (c * A) @ A: the rounding differs in
    // bfloat16.
    const torch::Tensor gram = torch::matmul(x, x.t());
    const torch::Tensor polynomial = b * gram + torch::matmul(c * gram, gram);
    x = a * x + torch::matmul(polynomial, x);
  }
  return tall ? x.t() : x;
}

torch::Tensor muon_direction(const torch::Tensor& grad, const torch::Tensor& momentum_buffer,
                             double beta, bool nesterov) {
  const torch::Tensor update = nesterov ? grad.lerp(momentum_buffer, beta) : momentum_buffer;
  const torch::Tensor matrix = update.dim() == 4 ? update.reshape({update.size(0), -1}) : update;
  const double rows = static_cast<double>(grad.size(-2)),
               columns = static_cast<double>(grad.size(-1));
  return (newton_schulz_orthogonalised(matrix) * std::sqrt(std::max(1.0, rows / columns)))
      .reshape(grad.sizes());
}

}  // namespace trainer
