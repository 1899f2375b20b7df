// Muon's update (Ultralytics 8.4 optim/muon.py, after Keller Jordan's Muon): the momentum-averaged
// gradient of a weight matrix (a convolution's filters flattened to [out, in * kh * kw])
// orthogonalised by five quintic Newton–Schulz iterations in bfloat16, as MuSGD adds it to SGD's.
#pragma once
#include <ATen/core/Tensor.h>

namespace trainer {

// An approximation of U V^T for matrix = U S V^T (singular values pushed into about [0.5, 1.5]),
// in bfloat16: the matrix is scaled to a Frobenius norm of 1, transposed to be wide, and iterated
// X <- a X + (b A + c A A) X with A = X X^T and (a, b, c) = (3.4445, -4.7750, 2.0315).
torch::Tensor newton_schulz_orthogonalised(const torch::Tensor& matrix);

// The Muon direction of `grad` given the momentum buffer as it stands after this step's
// `momentum_buffer.lerp(grad, 1 - beta)`: Nesterov's grad.lerp(buffer, beta) (or the buffer),
// orthogonalised as a matrix of the grad's first dimension, scaled by sqrt(max(1, rows / cols)) of
// the grad's last two dimensions (Ultralytics' rule, which for square convolution kernels is 1),
// in the grad's shape. bfloat16.
torch::Tensor muon_direction(const torch::Tensor& grad, const torch::Tensor& momentum_buffer,
                             double beta, bool nesterov);

}  // namespace trainer
