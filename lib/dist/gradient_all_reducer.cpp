#include "dist/gradient_all_reducer.h"

#include "dist/flat_tensors.h"

namespace trainer {

void GradientAllReducer::all_reduce(const std::vector<at::Tensor>& grads) {
  if (!collective_.distributed() || grads.empty()) return;
  const std::vector<std::vector<at::Tensor>> buckets = same_type_buckets(grads, bucket_bytes_);
  flat_.resize(buckets.size());
  std::vector<Collective::Completion> in_flight;
  in_flight.reserve(buckets.size());
  for (size_t i = 0; i < buckets.size(); ++i) {
    pack_flat(buckets[i], flat_[i]);
    in_flight.push_back(collective_.start_all_reduce(flat_[i]));
  }
  for (size_t i = 0; i < buckets.size(); ++i) {
    in_flight[i]();
    unpack_flat(flat_[i], buckets[i]);
  }
  ++rounds_;
}

}  // namespace trainer
