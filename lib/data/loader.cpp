#include "data/loader.h"

namespace trainer {

Loader::Collate Loader::for_device(Collate collate, const torch::Device& device) {
  if (!device.is_cuda()) return collate;
  return [collate = std::move(collate)](const std::vector<size_t>& indices, int64_t epoch) {
    Batch batch = collate(indices, epoch);
    batch.pin();
    return batch;
  };
}

Loader::Loader(Collate collate, int64_t workers, int64_t prefetch)
    : collate_(std::move(collate)), prefetch_(size_t(prefetch)) {
  TORCH_INTERNAL_ASSERT(workers >= 0, "workers must be >= 0, got ", workers);
  TORCH_INTERNAL_ASSERT(prefetch >= 1, "prefetch must be >= 1, got ", prefetch);
  try {
    for (int64_t i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
  } catch (...) {
    stop();
    throw;
  }
}

Loader::~Loader() { stop(); }

void Loader::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  for (auto& thread : threads_) thread.join();
  threads_.clear();
}

bool Loader::has_work() const {
  return batches_ && claimed_ < batches_->size() && claimed_ < yielded_ + prefetch_;
}

void Loader::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    work_cv_.wait(lock, [this] { return stopping_ || has_work(); });
    if (stopping_) return;
    const size_t index = claimed_++;
    const auto batches = batches_;
    const int64_t epoch = epoch_;
    const uint64_t generation = generation_;
    ++in_flight_;
    lock.unlock();
    Result result;
    try {
      result.batch = collate_((*batches)[index], epoch);
    } catch (...) {
      result.error = std::current_exception();
    }
    lock.lock();
    --in_flight_;
    if (generation == generation_) ready_.emplace(index, std::move(result));
    done_cv_.notify_all();
  }
}

void Loader::start_epoch(std::vector<std::vector<size_t>> batches, int64_t epoch, size_t first_batch) {
  TORCH_INTERNAL_ASSERT(first_batch <= batches.size(), "first_batch ", first_batch, " beyond ",
                        batches.size(), " batches");
  std::unique_lock lock(mutex_);
  ++generation_;
  batches_.reset();
  ready_.clear();
  // The caller may change what collate reads (the dataset, augmentation state) between epochs.
  done_cv_.wait(lock, [this] { return in_flight_ == 0; });
  batches_ = std::make_shared<const std::vector<std::vector<size_t>>>(std::move(batches));
  epoch_ = epoch;
  claimed_ = yielded_ = first_batch;
  lock.unlock();
  work_cv_.notify_all();
}

std::optional<Batch> Loader::next() {
  std::unique_lock lock(mutex_);
  if (!batches_ || yielded_ >= batches_->size()) return std::nullopt;
  if (threads_.empty()) {
    const auto batches = batches_;
    const size_t index = yielded_++;
    lock.unlock();
    return collate_((*batches)[index], epoch_);
  }
  done_cv_.wait(lock, [this] { return ready_.count(yielded_) > 0; });
  auto node = ready_.extract(yielded_++);
  lock.unlock();
  work_cv_.notify_one();
  if (node.mapped().error) std::rethrow_exception(node.mapped().error);
  return std::move(node.mapped().batch);
}

size_t Loader::batches_in_epoch() const {
  std::lock_guard lock(mutex_);
  return batches_ ? batches_->size() : 0;
}

}  // namespace trainer
