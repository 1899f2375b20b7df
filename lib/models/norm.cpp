#include "models/norm.h"

#include "models/sync_batch_norm.h"

namespace trainer {

FrozenBatchNorm2dImpl::FrozenBatchNorm2dImpl(const torch::nn::BatchNormOptions& options)
    : options(options) {
  reset();
}

void FrozenBatchNorm2dImpl::reset() {
  const int64_t features = options.num_features();
  // Registered as parameters (not buffers, as torchvision does) so code that walks parameters,
  // such as EMA or an explicit unfreeze, still sees them.
  weight = register_parameter("weight", torch::ones({features}), /*requires_grad=*/false);
  bias = register_parameter("bias", torch::zeros({features}), /*requires_grad=*/false);
  running_mean = register_buffer("running_mean", torch::zeros({features}));
  running_var = register_buffer("running_var", torch::ones({features}));
  num_batches_tracked = register_buffer("num_batches_tracked", torch::zeros({}, torch::kLong));
}

void FrozenBatchNorm2dImpl::pretty_print(std::ostream& stream) const {
  stream << "trainer::FrozenBatchNorm2d(" << options.num_features() << ", eps=" << options.eps()
         << ")";
}

torch::Tensor FrozenBatchNorm2dImpl::forward(const torch::Tensor& input) {
  TORCH_CHECK(input.dim() == 4, "FrozenBatchNorm2d expects a 4-d input, got ", input.dim(), "-d");
  return torch::batch_norm(input, weight, bias, running_mean, running_var, /*training=*/false,
                           /*momentum=*/0.0, options.eps(), at::globalContext().userEnabledCuDNN());
}

int64_t group_count(int64_t channels) {
  TORCH_CHECK(channels > 0, "group_count needs a positive channel count, got ", channels);
  int64_t groups = std::min<int64_t>(32, channels);
  while (channels % groups != 0) --groups;
  return groups;
}

torch::nn::AnyModule make_norm2d(NormKind kind, int64_t channels) {
  switch (kind) {
    case NormKind::batch:
      return torch::nn::AnyModule(torch::nn::BatchNorm2d(channels));
    case NormKind::group:
      return torch::nn::AnyModule(
          torch::nn::GroupNorm(torch::nn::GroupNormOptions(group_count(channels), channels)));
    case NormKind::frozen_batch:
      return torch::nn::AnyModule(FrozenBatchNorm2d(channels));
    case NormKind::sync_batch:
      return torch::nn::AnyModule(SyncBatchNorm2d(channels));
  }
  TORCH_INTERNAL_ASSERT(false, "unhandled NormKind");
}

torch::nn::AnyModule register_norm2d(torch::nn::Module& parent, const std::string& name,
                                     NormKind kind, int64_t channels) {
  torch::nn::AnyModule norm = make_norm2d(kind, channels);
  parent.register_module(name, norm.ptr());
  return norm;
}

}  // namespace trainer
