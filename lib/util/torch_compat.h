// Every difference between LibTorch 1.13 (Debian, CPU) and 2.x (CUDA builds) lives here.
#pragma once
#include <ATen/autocast_mode.h>
#include <torch/version.h>

#define TRAINER_TORCH_AT_LEAST_2_4 (TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4))
#if TRAINER_TORCH_AT_LEAST_2_4
#include <ATen/ops/_foreach_add.h>
#include <ATen/ops/_foreach_mul.h>
#include <ATen/ops/_fused_adam.h>
#include <ATen/ops/_fused_adamw.h>
#include <ATen/ops/_fused_sgd.h>

#include <optional>
#endif

namespace trainer::compat {

inline constexpr bool kTorch2 = TORCH_VERSION_MAJOR >= 2;

// Autocast state for one device type. 2.4+ takes the device type; 1.13 has per-device names.
inline bool autocast_enabled(c10::DeviceType device) {
#if TRAINER_TORCH_AT_LEAST_2_4
  return at::autocast::is_autocast_enabled(device);
#else
  return device == c10::DeviceType::CPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
#endif
}

inline at::ScalarType autocast_dtype(c10::DeviceType device) {
#if TRAINER_TORCH_AT_LEAST_2_4
  return at::autocast::get_autocast_dtype(device);
#else
  return device == c10::DeviceType::CPU ? at::autocast::get_autocast_cpu_dtype()
                                        : at::autocast::get_autocast_gpu_dtype();
#endif
}

inline void set_autocast(c10::DeviceType device, bool enabled, at::ScalarType dtype) {
#if TRAINER_TORCH_AT_LEAST_2_4
  at::autocast::set_autocast_dtype(device, dtype);
  at::autocast::set_autocast_enabled(device, enabled);
#else
  if (device == c10::DeviceType::CPU) {
    at::autocast::set_autocast_cpu_dtype(dtype);
    at::autocast::set_cpu_enabled(enabled);
  } else {
    at::autocast::set_autocast_gpu_dtype(dtype);
    at::autocast::set_enabled(enabled);
  }
#endif
}

// torch.optim's fused Adam, AdamW and SGD (fused=True): one multi-tensor launch per call where the
// tensor ops launch about 30 kernels per parameter. They read lr (float32), AdamW's step
// counters (float32, not incremented), grad_divisor (float32: grads are divided by it and, so
// divided, written back) and found_inf (float32; exactly 1 skips) on the device, so a captured
// update replays with new values of those; SGD's momentum is a host number. The tensor-lr
// overloads came in 2.2; this header draws its line at 2.4 for every 2.x difference. Undefined
// grad_divisor or found_inf: none.
inline constexpr bool kHasFusedOptimizers = TRAINER_TORCH_AT_LEAST_2_4;

#if TRAINER_TORCH_AT_LEAST_2_4
inline std::optional<at::Tensor> optional_tensor(const at::Tensor& tensor) {
  return tensor.defined() ? std::optional<at::Tensor>(tensor) : std::nullopt;
}
#endif

inline void fused_adamw(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs,
                        at::TensorList exp_avg_sqs, at::TensorList steps, const at::Tensor& lr, double beta1,
                        double beta2, double weight_decay, double eps, const at::Tensor& grad_divisor,
                        const at::Tensor& found_inf) {
#if TRAINER_TORCH_AT_LEAST_2_4
  at::_fused_adamw_(params, grads, exp_avgs, exp_avg_sqs, {}, steps, lr, beta1, beta2, weight_decay, eps,
                    /*amsgrad=*/false, /*maximize=*/false, optional_tensor(grad_divisor), optional_tensor(found_inf));
#else
  TORCH_CHECK(false, "fused AdamW needs LibTorch 2.4 or later");
#endif
}

// Adam: weight decay coupled (added to the grad), otherwise as fused_adamw.
inline void fused_adam(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs, at::TensorList exp_avg_sqs,
                       at::TensorList steps, const at::Tensor& lr, double beta1, double beta2, double weight_decay,
                       double eps, const at::Tensor& grad_divisor, const at::Tensor& found_inf) {
#if TRAINER_TORCH_AT_LEAST_2_4
  at::_fused_adam_(params, grads, exp_avgs, exp_avg_sqs, {}, steps, lr, beta1, beta2, weight_decay, eps,
                   /*amsgrad=*/false, /*maximize=*/false, optional_tensor(grad_divisor), optional_tensor(found_inf));
#else
  TORCH_CHECK(false, "fused Adam needs LibTorch 2.4 or later");
#endif
}

// No dampening, and buffers that start at zero (so not is_first_step: zero * momentum + grad is
// the first buffer all the same).
inline void fused_sgd(at::TensorList params, at::TensorList grads, at::TensorList momentum_buffers,
                      double weight_decay, double momentum, const at::Tensor& lr, bool nesterov,
                      const at::Tensor& grad_divisor, const at::Tensor& found_inf) {
#if TRAINER_TORCH_AT_LEAST_2_4
  at::_fused_sgd_(params, grads, momentum_buffers, weight_decay, momentum, lr, /*dampening=*/0.0, nesterov,
                  /*maximize=*/false, /*is_first_step=*/false, optional_tensor(grad_divisor), optional_tensor(found_inf));
#else
  TORCH_CHECK(false, "fused SGD needs LibTorch 2.4 or later");
#endif
}

// tensors[i] = weight * tensors[i] + other_weight * others[i], the weights being 0-dim tensors on
// the tensors' device, so that a captured graph reads their values at each replay rather than
// the ones they had when captured. 2.x has multi-tensor kernels for a tensor factor (since 2.1),
// at the cost of a temporary for the products; 1.13, CPU only here, goes tensor by tensor in two
// passes (with a temporary, ResNet18's EMA took 1.45 times as long there: 5.5 against 3.8 ms).
inline void foreach_blend_(at::TensorList tensors, const at::Tensor& weight, at::TensorList others,
                           const at::Tensor& other_weight) {
#if TRAINER_TORCH_AT_LEAST_2_4
  at::_foreach_mul_(tensors, weight);
  at::_foreach_add_(tensors, at::_foreach_mul(others, other_weight));
#else
  for (size_t i = 0; i < tensors.size(); ++i) tensors[i].mul_(weight).addcmul_(others[i], other_weight);
#endif
}

// 2.4+ hosts a TCPStore on libuv by default and throws where LibTorch was built without it
// (Debian's 2.x); the classic server is in every build, 1.13's included, and ample for our rank
// counts. A template, so this header needs no c10d include.
template <class TCPStoreOptions>
void use_classic_store_server(TCPStoreOptions& options) {
#if TRAINER_TORCH_AT_LEAST_2_4
  options.useLibUV = false;
#else
  (void)options;
#endif
}

}  // namespace trainer::compat

#ifdef TRAINER_CUDA
// The CUDA allocator's statistics types (StatType, DeviceStats) moved to a device-generic header
// in 2.5/2.6; compat::allocator_stats names whichever namespace holds them.
#if __has_include(<c10/core/CachingDeviceAllocator.h>)
#include <c10/core/CachingDeviceAllocator.h>
namespace trainer::compat {
namespace allocator_stats = c10::CachingDeviceAllocator;
}
#else
#include <c10/cuda/CUDACachingAllocator.h>
namespace trainer::compat {
namespace allocator_stats = c10::cuda::CUDACachingAllocator;
}
#endif
#endif
