#include "util/memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>

#ifdef TRAINER_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <cuda_runtime_api.h>

#include "util/torch_compat.h"
#endif

namespace trainer {
#ifdef TRAINER_CUDA
namespace {

c10::DeviceIndex cuda_index(const c10::Device& device) {
  return device.has_index() ? device.index() : c10::cuda::current_device();
}

// The runtime's own call: ATen's cached copy sits in a header that pulls in cuBLAS and cuSPARSE.
cudaDeviceProp properties(const c10::Device& device) {
  cudaDeviceProp properties{};
  C10_CUDA_CHECK(cudaGetDeviceProperties(&properties, cuda_index(device)));
  return properties;
}

}  // namespace
#endif

double peak_memory_mb(const c10::Device& device) {
#ifdef TRAINER_CUDA
  if (device.is_cuda()) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(cuda_index(device));
    const auto aggregate = static_cast<size_t>(compat::allocator_stats::StatType::AGGREGATE);
    return static_cast<double>(stats.allocated_bytes[aggregate].peak) / (1024.0 * 1024.0);
  }
#endif
  // VmHWM rather than getrusage's ru_maxrss: only VmHWM is reset by clear_refs.
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports kilobytes
}

void reset_peak_memory(const c10::Device& device) {
#ifdef TRAINER_CUDA
  if (device.is_cuda()) {
    c10::cuda::CUDACachingAllocator::resetPeakStats(cuda_index(device));
    return;
  }
#endif
  std::ofstream clear_refs("/proc/self/clear_refs");
  clear_refs << "5";  // "5" resets the peak resident set to the current one
}

int64_t available_host_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  int64_t kilobytes = 0;
  while (meminfo >> key >> kilobytes >> unit) {
    if (key == "MemAvailable:") return kilobytes * 1024;
  }
  return -1;
}

double used_memory_mb(const c10::Device& device) {
#ifdef TRAINER_CUDA
  if (device.is_cuda()) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(cuda_index(device));
    const auto aggregate = static_cast<size_t>(compat::allocator_stats::StatType::AGGREGATE);
    return static_cast<double>(stats.reserved_bytes[aggregate].current + stats.allocated_bytes[aggregate].current) /
           (1024.0 * 1024.0);
  }
#endif
  return 0;
}

double total_memory_mb(const c10::Device& device) {
#ifdef TRAINER_CUDA
  if (device.is_cuda()) {
    return static_cast<double>(properties(device).totalGlobalMem) / (1024.0 * 1024.0);
  }
#endif
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? static_cast<double>(pages) * static_cast<double>(page_size) / (1024.0 * 1024.0)
                                    : 0.0;
}

std::string device_name(const c10::Device& device) {
#ifdef TRAINER_CUDA
  if (device.is_cuda()) return properties(device).name;
#endif
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "cpu";
}

}  // namespace trainer
