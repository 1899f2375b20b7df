// The 2-d normalisation layer a model uses, chosen by the recipe's `norm` key. Every kind keeps
// the parameter and buffer names of its Python counterpart so torchvision state dicts load.
#pragma once
#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/any.h>
#include <torch/nn/options/batchnorm.h>

#include <cstdint>
#include <string>

#include "config/setting_types.h"

namespace trainer {

// BatchNorm2d that always normalises with its running statistics and whose affine parameters
// do not require grad: for fine-tuning with micro-batches too small for batch statistics.
// Unlike torchvision's FrozenBatchNorm2d it keeps num_batches_tracked (never advanced), so its
// keys are exactly BatchNorm2d's and torchvision's BatchNorm2d weights load strictly.
class FrozenBatchNorm2dImpl : public torch::nn::Cloneable<FrozenBatchNorm2dImpl> {
 public:
  explicit FrozenBatchNorm2dImpl(int64_t num_features)
      : FrozenBatchNorm2dImpl(torch::nn::BatchNormOptions(num_features)) {}
  explicit FrozenBatchNorm2dImpl(const torch::nn::BatchNormOptions& options);

  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  torch::Tensor forward(const torch::Tensor& input);

  torch::nn::BatchNormOptions options;
  torch::Tensor weight, bias, running_mean, running_var, num_batches_tracked;
};
TORCH_MODULE(FrozenBatchNorm2d);

// The GroupNorm group count for `channels`: its largest divisor that is at most 32.
int64_t group_count(int64_t channels);

// bn: BatchNorm2d; gn: GroupNorm (weight/bias only, no running statistics); frozen_bn:
// FrozenBatchNorm2d; syncbn: SyncBatchNorm2d (models/sync_batch_norm.h). Call forward with
// `norm.forward(x)`.
torch::nn::AnyModule make_norm2d(NormKind kind, int64_t channels);

// Makes the layer and registers it in `parent` under `name` (e.g. "bn1"), so its state-dict
// keys are `name.weight`, `name.running_mean`, ...; returns the handle to call forward on.
torch::nn::AnyModule register_norm2d(torch::nn::Module& parent, const std::string& name,
                                     NormKind kind, int64_t channels);

}  // namespace trainer
