#include "dist/module_sync.h"

#include <torch/autograd.h>

#include <limits>

#include "dist/flat_tensors.h"

namespace trainer {
namespace {

void broadcast_tensors(const std::vector<at::Tensor>& tensors, Collective& collective) {
  if (!collective.distributed() || tensors.empty()) return;
  torch::NoGradGuard no_grad;  // parameters are overwritten in place
  for (const auto& bucket : same_type_buckets(tensors, std::numeric_limits<int64_t>::max())) {
    at::Tensor flat;
    pack_flat(bucket, flat);
    collective.broadcast(flat);
    unpack_flat(flat, bucket);
  }
}

}  // namespace

void broadcast_parameters_and_buffers(torch::nn::Module& module, Collective& collective) {
  std::vector<at::Tensor> tensors = module.parameters();
  const std::vector<at::Tensor> buffers = module.buffers();
  tensors.insert(tensors.end(), buffers.begin(), buffers.end());
  broadcast_tensors(tensors, collective);
}

void broadcast_buffers(torch::nn::Module& module, Collective& collective) {
  broadcast_tensors(module.buffers(), collective);
}

}  // namespace trainer
