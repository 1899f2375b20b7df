// Decoded images kept in memory after their first use (Ultralytics' `cache: ram`): from the
// second epoch on, a sample costs no file read and no decode. Filled by whichever loader thread
// asks first; every later request, from any thread, gets the kept image.
#pragma once
#include <opencv2/core.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

namespace trainer {

class ImageMemo {
 public:
  explicit ImageMemo(size_t count);

  // The image of `index`, made by `make` on first use (once, however many threads ask at the same
  // time; if `make` throws, the next request tries again), then the kept one. The pixels are
  // shared: callers only read them.
  cv::Mat get(size_t index, const std::function<cv::Mat()>& make) const;
  size_t size() const { return count_; }
  size_t kept() const { return kept_; }         ///< images made so far
  int64_t bytes() const { return bytes_; }      ///< their pixel bytes

 private:
  struct Slot {
    std::once_flag made;
    cv::Mat image;
  };
  size_t count_;
  std::unique_ptr<Slot[]> slots_;
  mutable std::atomic<size_t> kept_{0};
  mutable std::atomic<int64_t> bytes_{0};
};

}  // namespace trainer
