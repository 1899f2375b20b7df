#include "util/onednn_check.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <torch/torch.h>

namespace trainer {
namespace {

// Deterministic values in [-scale, scale] without touching the random generators.
torch::Tensor waves(at::IntArrayRef shape, double scale) {
  int64_t count = 1;
  for (const int64_t size : shape) count *= size;
  return torch::arange(count, torch::kFloat).mul(0.37).sin().mul(scale).reshape(shape);
}

bool close(const torch::Tensor& value, const torch::Tensor& reference) {
  return value.isfinite().all().item<bool>() &&
         value.sub(reference).abs().max().item<double>() <= 1e-3 * reference.abs().max().item<double>();
}

// One 3x3 convolution's input and weight gradients, through oneDNN and then through ATen's kernels
// (oneDNN left switched off).
bool layer_agrees(int64_t in_channels, int64_t out_channels) {
  const torch::Tensor input = waves({8, in_channels, 16, 32}, 1.0).requires_grad_();
  const torch::Tensor weight = waves({out_channels, in_channels, 3, 3}, 0.3).requires_grad_();
  const torch::Tensor bias = waves({out_channels}, 0.1).requires_grad_();
  const torch::Tensor grad_output = waves({8, out_channels, 16, 32}, 0.7).flip(3);
  const auto gradients = [&] {
    const torch::Tensor output = torch::conv2d(input, weight, bias, 1, 1);
    return torch::autograd::grad({output}, {input, weight}, {grad_output});
  };
  const auto onednn = gradients();
  at::globalContext().setUserEnabledMkldnn(false);
  const auto reference = gradients();
  return close(onednn[0], reference[0]) && close(onednn[1], reference[1]);
}

}  // namespace

bool onednn_convolution_gradients_agree() {
  if (!at::globalContext().userEnabledMkldnn()) return true;
  // Puts back the thread count and switches oneDNN on again (layer_agrees leaves it off), also on a throw.
  struct Restore {
    int threads = at::get_num_threads();
    ~Restore() {
      at::globalContext().setUserEnabledMkldnn(true);
      at::set_num_threads(threads);
    }
  } restore;
  torch::AutoGradMode grad_mode(true);
  at::set_num_threads(1);
  return layer_agrees(4, 8);
}

bool use_correct_convolutions() {
  if (onednn_convolution_gradients_agree()) return true;
  at::globalContext().setUserEnabledMkldnn(false);
  spdlog::warn("this LibTorch's oneDNN computes wrong convolution gradients on this CPU (a start-up check of a small "
               "layer against ATen's own kernels), so convolutions run on ATen's kernels: right, but slower "
               "(docs/training.md, \"LibTorch 2.x on a CPU\")");
  return false;
}

const char* cpu_convolution_kernels() {
  if (!at::hasMKLDNN()) return "ATen's (this LibTorch has no oneDNN)";
  return at::globalContext().userEnabledMkldnn() ? "oneDNN" : "ATen's (oneDNN failed the start-up check)";
}

}  // namespace trainer
