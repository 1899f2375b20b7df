// Sums the gradients of all ranks once per update (R17), as DistributedDataParallel does but
// called from the update step instead of autograd hooks, so the micro-batches that only
// accumulate never communicate (the no_sync rule falls out of where it is called). Gradients
// travel in a few flat buckets: one all-reduce of ONE tensor per bucket (c10d reads a vector of
// tensors as copies of a single one), and bucket k+1 is packed while bucket k is on the wire.
#pragma once
#include <ATen/Tensor.h>

#include <vector>

#include "dist/collective.h"

namespace trainer {

class GradientAllReducer {
 public:
  // DistributedDataParallel's default bucket size: large enough that per-call latency is paid a
  // few times per update, small enough to pipeline packing with the transfer.
  static constexpr int64_t kBucketBytes = 25 * 1024 * 1024;

  explicit GradientAllReducer(Collective& collective, int64_t bucket_bytes = kBucketBytes)
      : collective_(collective), bucket_bytes_(bucket_bytes) {}
  // Replaces each gradient with its sum over all ranks. Every rank passes the same shapes in the
  // same order. Nothing happens in a single process.
  void all_reduce(const std::vector<at::Tensor>& grads);
  int64_t rounds() const { return rounds_; }                ///< all_reduce calls that communicated
  int64_t bucket_count() const { return static_cast<int64_t>(flat_.size()); }  ///< buckets of the last one

 private:
  Collective& collective_;
  int64_t bucket_bytes_;
  std::vector<at::Tensor> flat_;  // kept between updates: packing then allocates nothing
  int64_t rounds_ = 0;
};

}  // namespace trainer
