// norm=syncbn (R17): BatchNorm2d whose training statistics cover the micro-batches of all ranks,
// so BatchNorm sees the global batch. It has BatchNorm2d's parameters and buffers (weight, bias,
// running_mean, running_var, num_batches_tracked): checkpoints load into either. Until a sum over
// ranks is attached (one process, validation, prediction) it is BatchNorm2d. The layer asks only
// for that sum (RankSum), which dist/sync_batch_norm_scope.h provides over the job's collective,
// so models know nothing of process groups.
#pragma once
#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/options/batchnorm.h>

#include <ATen/core/Tensor.h>

namespace trainer {

// A sum over the ranks of a job, in place, in every rank at once.
class RankSum {
 public:
  virtual ~RankSum() = default;
  virtual void sum_in_place(const at::Tensor& tensor) = 0;
};

class SyncBatchNorm2dImpl : public torch::nn::Cloneable<SyncBatchNorm2dImpl> {
 public:
  explicit SyncBatchNorm2dImpl(int64_t num_features)
      : SyncBatchNorm2dImpl(torch::nn::BatchNormOptions(num_features)) {}
  explicit SyncBatchNorm2dImpl(const torch::nn::BatchNormOptions& options);

  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  torch::Tensor forward(const torch::Tensor& input);
  // The ranks whose statistics are pooled in training; nullptr = this process's batch alone.
  void set_rank_sum(RankSum* rank_sum) { rank_sum_ = rank_sum; }

  torch::nn::BatchNormOptions options;
  torch::Tensor weight, bias, running_mean, running_var, num_batches_tracked;

 private:
  torch::Tensor synchronised_forward(const torch::Tensor& input);
  RankSum* rank_sum_ = nullptr;
};
TORCH_MODULE(SyncBatchNorm2d);

}  // namespace trainer
