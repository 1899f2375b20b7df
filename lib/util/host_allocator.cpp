#include "util/host_allocator.h"

#include <atomic>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace trainer {
namespace {

std::atomic<bool> kept{false};

}  // namespace

bool keep_freed_host_memory() {
#if defined(__GLIBC__)
  constexpr int kLargestHeapBlock = 1 << 30;
  // An explicit threshold also switches off glibc's dynamic one, which would rise only to 32 MB.
  const bool mapped_blocks = mallopt(M_MMAP_THRESHOLD, kLargestHeapBlock) == 1;
  const bool trimming = mallopt(M_TRIM_THRESHOLD, kLargestHeapBlock) == 1;
  kept = mapped_blocks && trimming;
#endif
  return kept;
}

bool freed_host_memory_kept() { return kept; }

}  // namespace trainer
