// Spreads independent per-item work (decoding, verifying files) over the machine's cores.
#pragma once
#include <cstddef>
#include <functional>

namespace trainer {

// Calls work(i) once for every i in [0, count) on up to hardware_concurrency() threads, the
// calling one included, in no particular order. When calls throw, the first exception is
// rethrown after every thread has stopped; the remaining items may or may not have run.
void parallel_for_each_index(size_t count, const std::function<void(size_t)>& work);

}  // namespace trainer
