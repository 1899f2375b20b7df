#include "util/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace trainer {

void parallel_for_each_index(size_t count, const std::function<void(size_t)>& work) {
  std::atomic<size_t> next{0};
  std::mutex mutex;
  size_t failed_index = count;
  std::exception_ptr failure;
  const auto run = [&] {
    for (size_t i; (i = next.fetch_add(1)) < count;) {
      try {
        work(i);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (i < failed_index) {
          failed_index = i;
          failure = std::current_exception();
        }
      }
    }
  };
  const size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 64);
  std::vector<std::thread> pool;
  for (size_t t = 1; t < std::min(threads, count); ++t) pool.emplace_back(run);
  run();
  for (auto& thread : pool) thread.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace trainer
