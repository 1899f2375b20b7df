#include "optim/loss_scaler.h"

#include <torch/utils.h>

#include "util/error.h"

namespace trainer {

LossScaler::LossScaler(bool enabled, torch::Device device, LossScalerOptions options)
    : enabled_(enabled),
      options_(options),
      scale_(torch::full({}, enabled ? options.init_scale : 1.0,
                         torch::TensorOptions(device).dtype(torch::kFloat))),
      growth_tracker_(torch::zeros({}, torch::TensorOptions(device).dtype(torch::kInt))) {}

bool LossScaler::enabled() const { return enabled_; }

torch::Tensor LossScaler::scale(const torch::Tensor& loss) const {
  return enabled_ ? loss * scale_ : loss;
}

torch::Tensor LossScaler::unscale_(const std::vector<torch::Tensor>& grads) {
  torch::NoGradGuard no_grad;
  torch::Tensor found_inf = torch::zeros({}, scale_.options());
  const torch::Tensor inv_scale = this->inv_scale();
  if (scale_.is_cuda()) {
    // The fused kernel wants one dtype per call.
    std::map<torch::ScalarType, std::vector<torch::Tensor>> by_dtype;
    for (const torch::Tensor& grad : grads) {
      if (grad.defined()) by_dtype[grad.scalar_type()].push_back(grad);
    }
    for (auto& [dtype, group] : by_dtype) {
      at::_amp_foreach_non_finite_check_and_unscale_(group, found_inf, inv_scale);
    }
    return found_inf;
  }
  // A sum is non-finite iff an element is, or (for float32 and wider) the finite values add up
  // past ~1e38, which no trainable gradient does. It takes one pass; isfinite().all() takes
  // several and allocates (~12x slower on ResNet18's grads). Narrow floats are summed in
  // float32 so that ordinary fp16 grads cannot overflow the sum.
  std::vector<torch::Tensor> sums;
  for (const torch::Tensor& grad : grads) {
    if (!grad.defined()) continue;
    if (enabled_) grad.mul_(inv_scale);
    sums.push_back(c10::elementSize(grad.scalar_type()) < 4 ? grad.sum(torch::kFloat)
                                                           : grad.sum());
  }
  if (!sums.empty()) {
    found_inf.copy_(torch::stack(sums).isfinite().all().logical_not());
  }
  return found_inf;
}

void LossScaler::update(const torch::Tensor& found_inf) {
  if (!enabled_) return;
  torch::NoGradGuard no_grad;
  if (scale_.is_cuda()) {
    at::_amp_update_scale_(scale_, growth_tracker_, found_inf, options_.growth_factor,
                           options_.backoff_factor, options_.growth_interval);
    return;
  }
  // The same rules as the CUDA kernel, written branch-free.
  const torch::Tensor overflow = found_inf.ne(0);
  const torch::Tensor successful = (growth_tracker_ + 1).masked_fill(overflow, 0);
  const torch::Tensor grown = scale_ * options_.growth_factor;
  const torch::Tensor grow = successful.ge(options_.growth_interval).logical_and(grown.isfinite());
  const torch::Tensor new_scale =
      torch::where(overflow, scale_ * options_.backoff_factor, torch::where(grow, grown, scale_));
  growth_tracker_.copy_(successful.masked_fill(successful.ge(options_.growth_interval), 0));
  scale_.copy_(new_scale);
}

torch::Tensor LossScaler::scale_value() const { return scale_; }

torch::Tensor LossScaler::inv_scale() const {
  torch::NoGradGuard no_grad;
  return scale_.to(torch::kDouble).reciprocal().to(torch::kFloat);
}

std::vector<std::pair<std::string, torch::Tensor>> LossScaler::state() const {
  return {{"scale", scale_}, {"growth_tracker", growth_tracker_}};
}

void LossScaler::load_state(const std::map<std::string, torch::Tensor>& state) {
  for (const auto& [key, tensor] : this->state()) {
    const auto found = state.find(key);
    if (found == state.end()) throw UserError("loss scaler state has no '" + key + "'");
    if (found->second.numel() != 1) {
      throw UserError("loss scaler state '" + key + "' must hold one value, not " +
                      std::to_string(found->second.numel()));
    }
  }
  torch::NoGradGuard no_grad;
  scale_.copy_(state.at("scale").reshape({}));
  growth_tracker_.copy_(state.at("growth_tracker").reshape({}));
}

}  // namespace trainer
