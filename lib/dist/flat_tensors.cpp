#include "dist/flat_tensors.h"

#include <ATen/ATen.h>

namespace trainer {

std::vector<std::vector<at::Tensor>> same_type_buckets(const std::vector<at::Tensor>& tensors, int64_t max_bytes) {
  // Runs of one type first, so interleaved float and integer buffers (BatchNorm's) still make one bucket each.
  std::vector<std::vector<at::Tensor>> runs;
  for (const at::Tensor& tensor : tensors) {
    const auto same_type = [&](const std::vector<at::Tensor>& run) {
      return run.front().scalar_type() == tensor.scalar_type() && run.front().device() == tensor.device();
    };
    const auto run = std::find_if(runs.begin(), runs.end(), same_type);
    if (run == runs.end()) {
      runs.push_back({tensor});
    } else {
      run->push_back(tensor);
    }
  }
  std::vector<std::vector<at::Tensor>> buckets;
  for (const auto& run : runs) {
    buckets.emplace_back();
    int64_t bytes = 0;
    for (const at::Tensor& tensor : run) {
      const int64_t size = static_cast<int64_t>(tensor.nbytes());
      if (!buckets.back().empty() && bytes + size > max_bytes) {
        buckets.emplace_back();
        bytes = 0;
      }
      buckets.back().push_back(tensor);
      bytes += size;
    }
  }
  return buckets;
}

void pack_flat(const std::vector<at::Tensor>& tensors, at::Tensor& flat) {
  TORCH_INTERNAL_ASSERT(!tensors.empty(), "pack_flat of no tensors");
  int64_t numel = 0;
  std::vector<at::Tensor> rows;
  rows.reserve(tensors.size());
  for (const at::Tensor& tensor : tensors) {
    numel += tensor.numel();
    rows.push_back(tensor.reshape({-1}));
  }
  const at::TensorOptions options = tensors.front().options();
  if (!flat.defined() || flat.numel() != numel || flat.scalar_type() != options.dtype().toScalarType() ||
      flat.device() != options.device()) {
    flat = at::empty({numel}, options);
  }
  at::cat_out(flat, rows, 0);
}

void unpack_flat(const at::Tensor& flat, const std::vector<at::Tensor>& tensors) {
  int64_t offset = 0;
  for (const at::Tensor& tensor : tensors) {
    const int64_t numel = tensor.numel();
    // copy_ respects the tensor's own strides (channels-last gradients included).
    tensor.copy_(flat.narrow(0, offset, numel).view(tensor.sizes()));
    offset += numel;
  }
  TORCH_INTERNAL_ASSERT(offset == flat.numel(), "unpack_flat: sizes differ from the packed tensors");
}

}  // namespace trainer
