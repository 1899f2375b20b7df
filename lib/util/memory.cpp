#include "util/memory.h"

#include <sys/resource.h>

#ifdef TRAINER_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace trainer {

double peak_memory_mb(const c10::Device& device) {
#ifdef TRAINER_CUDA
  if (device.is_cuda()) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
    const auto aggregate = static_cast<size_t>(c10::cuda::CUDACachingAllocator::StatType::AGGREGATE);
    return static_cast<double>(stats.allocated_bytes[aggregate].peak) / (1024.0 * 1024.0);
  }
#endif
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports kilobytes
}

}  // namespace trainer
