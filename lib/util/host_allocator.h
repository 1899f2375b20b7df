// How the process's C allocator treats freed memory, set once at start-up.
#pragma once

namespace trainer {

// Keeps freed heap memory (blocks up to 1 GiB) in the process for reuse instead of handing it
// back to the kernel. By default glibc unmaps freed blocks above its mmap threshold (at most
// 32 MB) and trims the heap's free top, so each training step page-faults its large CPU tensors
// in again and the kernel zeroes every page: on the 2-core CPU that cost YOLOv8n's step a third of its
// time and the CRNN's 8 % (docs/benchmarks.md). The resident set stays at its peak instead of
// falling between steps. Returns false where the C library is not glibc or refuses the setting.
bool keep_freed_host_memory();

// Whether keep_freed_host_memory() has succeeded in this process (`trainer plan` says so).
bool freed_host_memory_kept();

}  // namespace trainer
