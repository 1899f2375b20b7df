// Peak memory of the run: device memory on CUDA, the process's peak resident set on CPU.
#pragma once
#include <c10/core/Device.h>

namespace trainer {

double peak_memory_mb(const c10::Device& device);

}  // namespace trainer
