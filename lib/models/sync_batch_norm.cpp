#include "models/sync_batch_norm.h"

#include <torch/autograd.h>

namespace trainer {
namespace {

// Sum over ranks that autograd differentiates: every rank's loss depends on the pooled sums, so
// the gradient reaching a rank's own sums is the pooled gradient (torch.distributed.nn.all_reduce).
class AllReduceSum : public torch::autograd::Function<AllReduceSum> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* context, const torch::Tensor& local,
                               RankSum* rank_sum) {
    context->saved_data["rank_sum"] = reinterpret_cast<int64_t>(rank_sum);
    torch::Tensor pooled = local.clone();
    rank_sum->sum_in_place(pooled);
    return pooled;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* context,
                                                 torch::autograd::variable_list grads) {
    auto* rank_sum = reinterpret_cast<RankSum*>(context->saved_data["rank_sum"].toInt());
    torch::Tensor pooled = grads[0].contiguous().clone();
    rank_sum->sum_in_place(pooled);
    return {pooled, torch::Tensor()};
  }
};

}  // namespace

SyncBatchNorm2dImpl::SyncBatchNorm2dImpl(const torch::nn::BatchNormOptions& options) : options(options) {
  TORCH_CHECK(options.momentum().has_value(),
              "SyncBatchNorm2d needs a momentum (a cumulative average is not supported)");
  reset();
}

void SyncBatchNorm2dImpl::reset() {
  const int64_t features = options.num_features();
  weight = register_parameter("weight", torch::ones({features}));
  bias = register_parameter("bias", torch::zeros({features}));
  running_mean = register_buffer("running_mean", torch::zeros({features}));
  running_var = register_buffer("running_var", torch::ones({features}));
  num_batches_tracked = register_buffer("num_batches_tracked", torch::zeros({}, torch::kLong));
}

void SyncBatchNorm2dImpl::pretty_print(std::ostream& stream) const {
  stream << "trainer::SyncBatchNorm2d(" << options.num_features() << ", eps=" << options.eps()
         << ", momentum=" << *options.momentum() << ")";
}

torch::Tensor SyncBatchNorm2dImpl::forward(const torch::Tensor& input) {
  TORCH_CHECK(input.dim() == 4, "SyncBatchNorm2d expects a 4-d input, got ", input.dim(), "-d");
  if (is_training() && rank_sum_) return synchronised_forward(input);
  if (is_training()) num_batches_tracked += 1;
  return torch::batch_norm(input, weight, bias, running_mean, running_var, is_training(), *options.momentum(),
                           options.eps(), at::globalContext().userEnabledCuDNN());
}

torch::Tensor SyncBatchNorm2dImpl::synchronised_forward(const torch::Tensor& input) {
  const int64_t channels = options.num_features();
  const double momentum = *options.momentum();
  // Statistics in fp32 (also under autocast), of the input minus the running mean: the same shift
  // on every rank, and it keeps sum-of-squares minus squared-sum well conditioned.
  const torch::Tensor shift = running_mean.detach().clone().view({1, channels, 1, 1});
  const torch::Tensor centred = input.to(torch::kFloat) - shift;
  const std::vector<int64_t> reduced{0, 2, 3};
  const double count = static_cast<double>(input.numel() / channels);
  const torch::Tensor local = torch::cat({centred.sum(reduced), centred.square().sum(reduced),
                                          torch::full({1}, count, centred.options())});
  const torch::Tensor pooled = AllReduceSum::apply(local, rank_sum_);
  const torch::Tensor samples = pooled.narrow(0, 2 * channels, 1);
  const torch::Tensor mean = pooled.narrow(0, 0, channels) / samples;               // of the centred input
  const torch::Tensor variance = pooled.narrow(0, channels, channels) / samples - mean.square();  // biased
  {
    torch::NoGradGuard no_grad;
    running_mean.mul_(1 - momentum).add_(shift.view({channels}) + mean, momentum);
    running_var.mul_(1 - momentum).add_(variance * samples / (samples - 1), momentum);
    num_batches_tracked += 1;
  }
  const torch::Tensor scale = (variance + options.eps()).rsqrt() * weight;
  const torch::Tensor output = (centred - mean.view({1, channels, 1, 1})) * scale.view({1, channels, 1, 1}) +
                               bias.view({1, channels, 1, 1});
  return output.to(input.scalar_type());
}

}  // namespace trainer
