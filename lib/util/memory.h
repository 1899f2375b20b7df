// Peak memory of the run: device memory on CUDA, the process's peak resident set on CPU.
#pragma once
#include <c10/core/Device.h>

#include <cstdint>
#include <string>

namespace trainer {

double peak_memory_mb(const c10::Device& device);
// Starts a new peak from what is in use now, so one part of a run can be measured on its own
// (on CPU through /proc/self/clear_refs; where that is refused, the peak stays the process's).
void reset_peak_memory(const c10::Device& device);
// Bytes of host memory the system can still give without swapping (Linux's MemAvailable), or -1
// where it cannot tell.
int64_t available_host_memory_bytes();
// What the caching allocator holds on a CUDA device now, reserved plus allocated in MB, as
// Ultralytics' AutoBatch counts it; 0 on the CPU.
double used_memory_mb(const c10::Device& device);
// The device's total memory in MB (the machine's RAM for the CPU); 0 when unknown.
double total_memory_mb(const c10::Device& device);
// What the device is, for keys of cached decisions: the GPU's name, or the CPU's model name.
std::string device_name(const c10::Device& device);

}  // namespace trainer
