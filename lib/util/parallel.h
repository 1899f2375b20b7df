// Runs independent per-index work on all cores: start-up scans over many files (headers,
// decodes) that would otherwise take minutes on one thread.
#pragma once
#include <cstddef>
#include <functional>

namespace trainer {

// Calls work(i) for every i in [0, count) from up to hardware_concurrency threads, the calling
// thread included. When calls throw, the exception of the lowest index is rethrown after all
// threads have finished, so the error a user sees does not depend on thread timing.
void parallel_for_each_index(size_t count, const std::function<void(size_t)>& work);

}  // namespace trainer
