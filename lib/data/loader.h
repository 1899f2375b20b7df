// Runs a collate function on worker threads ahead of the training loop and hands the batches back
// strictly in order, so results never depend on the worker count or thread timing.
#pragma once
#include "data/batch.h"

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace trainer {

// One consumer thread calls start_epoch and next. Collate must not use ATen intra-op parallelism:
// at::set_num_threads is process-wide in LibTorch 1.13 (OpenMP backend), so a worker cannot opt
// out of it without also shrinking the training thread's pool. Work on raw tensor memory instead.
class Loader {
 public:
  using Collate = std::function<Batch(const std::vector<size_t>& indices, int64_t epoch)>;

  // For a loop on a CUDA device, `collate` with each batch moved into pinned memory by the worker
  // that made it (Batch::pin; PyTorch's DataLoader(pin_memory=True) pins on a thread of its own);
  // on any other device `collate` itself.
  static Collate for_device(Collate collate, const torch::Device& device);

  // workers = 0 runs collate inside next() on the calling thread. prefetch >= 1 bounds how many
  // batches are decoded or waiting ahead of the consumer, which bounds memory.
  Loader(Collate collate, int64_t workers, int64_t prefetch);
  ~Loader();
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  // Begins at batches[first_batch] (a resumed epoch). An epoch still in flight is cancelled: its
  // pending batches are dropped, and this returns only once no collate call of it is running.
  void start_epoch(std::vector<std::vector<size_t>> batches, int64_t epoch, size_t first_batch = 0);
  // The next batch in order, nullopt when the epoch is done. Rethrows what collate threw for it.
  std::optional<Batch> next();
  // All batches of the current epoch, including any skipped by first_batch.
  size_t batches_in_epoch() const;

 private:
  struct Result {
    Batch batch;
    std::exception_ptr error;
  };
  bool has_work() const;
  void stop();
  void work();

  Collate collate_;
  size_t prefetch_;
  mutable std::mutex mutex_;
  std::condition_variable work_cv_;   // workers: room ahead of the consumer, or stop
  std::condition_variable done_cv_;   // consumer: a batch finished
  std::shared_ptr<const std::vector<std::vector<size_t>>> batches_;
  int64_t epoch_ = 0;
  uint64_t generation_ = 0;  // bumped per start_epoch; results of older generations are dropped
  size_t claimed_ = 0;       // next batch a worker takes
  size_t yielded_ = 0;       // next batch next() returns
  size_t in_flight_ = 0;
  std::map<size_t, Result> ready_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace trainer
