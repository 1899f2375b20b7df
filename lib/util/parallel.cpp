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
  std::mutex error_mutex;
  std::exception_ptr error;
  const auto drain = [&] {
    for (size_t i; (i = next.fetch_add(1)) < count;) {
      try {
        work(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        next = count;  // stop handing out items; what already runs finishes
      }
    }
  };
  const size_t threads = std::min<size_t>(std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 64), count);
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < threads; ++t) helpers.emplace_back(drain);
  drain();
  for (auto& helper : helpers) helper.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace trainer
