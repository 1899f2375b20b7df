// Every difference between LibTorch 1.13 (Debian, CPU) and 2.x (CUDA builds) lives here.
#pragma once
#include <ATen/autocast_mode.h>
#include <torch/version.h>

namespace trainer::compat {

inline constexpr bool kTorch2 = TORCH_VERSION_MAJOR >= 2;

// Autocast state for one device type. 2.4+ takes the device type; 1.13 has per-device names.
inline bool autocast_enabled(c10::DeviceType device) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  return at::autocast::is_autocast_enabled(device);
#else
  return device == c10::DeviceType::CPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
#endif
}

inline at::ScalarType autocast_dtype(c10::DeviceType device) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  return at::autocast::get_autocast_dtype(device);
#else
  return device == c10::DeviceType::CPU ? at::autocast::get_autocast_cpu_dtype()
                                        : at::autocast::get_autocast_gpu_dtype();
#endif
}

inline void set_autocast(c10::DeviceType device, bool enabled, at::ScalarType dtype) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
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

// 2.4+ hosts a TCPStore on libuv by default and throws where LibTorch was built without it
// (Debian's 2.x); the classic server is in every build, 1.13's included, and ample for our rank
// counts. A template, so this header needs no c10d include.
template <class TCPStoreOptions>
void use_classic_store_server(TCPStoreOptions& options) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
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
