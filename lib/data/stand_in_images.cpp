#include "data/stand_in_images.h"

#include <spdlog/spdlog.h>

#include <vector>

#include "util/error.h"

namespace trainer {

size_t StandInImages::resolve(size_t i) const {
  std::lock_guard<std::mutex> lock(mutex_);
  // A stand-in that failed in turn points on; no chain loops, as only unmapped samples stand in.
  for (auto found = stand_in_.find(i); found != stand_in_.end(); found = stand_in_.find(i)) i = found->second;
  return i;
}

cv::Mat StandInImages::read(size_t i, size_t count, const std::function<cv::Mat(size_t)>& decode) const {
  const size_t first = resolve(i);
  try {
    return decode(first);
  } catch (const UserError& error) {
    // Decoding happens outside the lock: other threads go on reading meanwhile.
    std::vector<size_t> failed{i, first};
    for (size_t step = 1; step < count; ++step) {
      const size_t candidate = (first + step) % count;
      if (resolve(candidate) != candidate) continue;  // known unreadable
      cv::Mat image;
      try {
        image = decode(candidate);
      } catch (const UserError&) {
        failed.push_back(candidate);
        continue;
      }
      std::lock_guard<std::mutex> lock(mutex_);
      for (size_t sample : failed) stand_in_[sample] = candidate;
      spdlog::warn(
          "{} (it changed since the scan): skipped, sample {} takes the place of sample {} ({} unreadable so far)",
          error.what(), candidate, i, stand_in_.size());
      return image;
    }
    throw;
  }
}

}  // namespace trainer
