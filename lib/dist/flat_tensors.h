// Many tensors as one contiguous tensor: a collective per tensor costs a round trip each, so
// gradients and module state travel packed.
#pragma once
#include <ATen/Tensor.h>

#include <cstdint>
#include <vector>

namespace trainer {

// `tensors` split into runs of one dtype and device, in order of first appearance, each run cut
// into buckets of at most `max_bytes` (a larger tensor gets a bucket of its own).
std::vector<std::vector<at::Tensor>> same_type_buckets(const std::vector<at::Tensor>& tensors, int64_t max_bytes);
// Copies `tensors` (one dtype and device) end to end into `flat`, which is reallocated only when
// its size or type does not fit, so a caller that keeps it packs without allocating.
void pack_flat(const std::vector<at::Tensor>& tensors, at::Tensor& flat);
// The inverse of pack_flat: copies `flat` back into `tensors`.
void unpack_flat(const at::Tensor& flat, const std::vector<at::Tensor>& tensors);

}  // namespace trainer
