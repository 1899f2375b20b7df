// norm=syncbn (R17): BatchNorm2d whose training statistics cover the micro-batches of all ranks,
// so BatchNorm sees the global batch. It has BatchNorm2d's parameters and buffers (weight, bias,
// running_mean, running_var, num_batches_tracked): checkpoints load into either. Until a
// collective is attached (one process, validation, prediction) it is BatchNorm2d.
#pragma once
#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/options/batchnorm.h>

#include "dist/collective.h"

namespace trainer {

class SyncBatchNorm2dImpl : public torch::nn::Cloneable<SyncBatchNorm2dImpl> {
 public:
  explicit SyncBatchNorm2dImpl(int64_t num_features)
      : SyncBatchNorm2dImpl(torch::nn::BatchNormOptions(num_features)) {}
  explicit SyncBatchNorm2dImpl(const torch::nn::BatchNormOptions& options);

  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  torch::Tensor forward(const torch::Tensor& input);
  // The ranks whose statistics are pooled in training; nullptr = this process's batch alone.
  void set_collective(Collective* collective) { collective_ = collective; }

  torch::nn::BatchNormOptions options;
  torch::Tensor weight, bias, running_mean, running_var, num_batches_tracked;

 private:
  torch::Tensor synchronised_forward(const torch::Tensor& input);
  Collective* collective_ = nullptr;
};
TORCH_MODULE(SyncBatchNorm2d);

// Points every SyncBatchNorm2d of a module at a collective while it lives.
class SyncBatchNormScope {
 public:
  SyncBatchNormScope(torch::nn::Module& module, Collective& collective);
  ~SyncBatchNormScope();
  SyncBatchNormScope(const SyncBatchNormScope&) = delete;
  SyncBatchNormScope& operator=(const SyncBatchNormScope&) = delete;

 private:
  torch::nn::Module& module_;
};

}  // namespace trainer
