#include "engine/step_core.h"

#include "dist/module_sync.h"
#include "engine/autocast.h"
#include "optim/grad_clip.h"

namespace trainer {

StepCore::StepCore(Task& task, FusedOptimizer& optimizer, LossScaler& scaler, ModelEma* ema, const StepConfig& config,
                   Collective& collective)
    : task_(task),
      training_(task.training()),
      optimizer_(optimizer),
      scaler_(scaler),
      ema_(ema),
      config_(config),
      collective_(collective),
      gradient_reducer_(collective),
      split_(training_.loss_split()) {
  for (const auto& parameter : task_.model().parameters()) {
    if (parameter.requires_grad()) parameters_.push_back(parameter);
  }
  const auto options = torch::TensorOptions().device(config_.device).dtype(torch::kFloat);
  loss_divisor_ = torch::ones({}, options);
  live_ = torch::ones({}, options);
  batch_samples_ = torch::ones({}, options);
  loss_sums_ = torch::zeros({static_cast<int64_t>(training_.loss_names().size())}, options);
  grad_norm_sum_ = torch::zeros({}, options);
  skipped_sum_ = torch::zeros({}, options);
}

torch::Tensor StepCore::laid_out(const torch::Tensor& input) const {
  return config_.execution.channels_last && input.dim() == 4 ? input.contiguous(at::MemoryFormat::ChannelsLast)
                                                             : input;
}

void StepCore::prepare_micro_step(int64_t group_samples, bool padding, int64_t samples) {
  loss_divisor_.fill_(training_.loss_divisor(group_samples));
  live_.fill_(padding ? 0.0 : 1.0);
  batch_samples_.fill_(static_cast<double>(std::max<int64_t>(samples, 1)));
  if (padding) return;
  samples_ += samples;
  ++batches_;
}

Batch StepCore::laid_out(const Batch& batch) const {
  Batch laid_out_batch = batch;
  laid_out_batch.input = laid_out(batch.input);
  return laid_out_batch;
}

torch::Tensor StepCore::weighted(const LossOutput& output) {
  // A padding micro-batch adds exact zeros (where, not a product, so its inf/NaN stays out);
  // multiplying a live one by 1 is exact, so it computes what total / divisor gives.
  const torch::Tensor parts = output.parts.to(torch::kFloat);
  loss_sums_ += torch::where(live_ > 0, parts / batch_samples_, torch::zeros_like(parts));
  return output.total / loss_divisor_ * live_;
}

void StepCore::micro_step(const Batch& batch) {
  torch::Tensor normalised;
  {
    AutocastGuard autocast(config_.device.type(), config_.amp_dtype);
    normalised = weighted(training_.loss(laid_out(batch)));
  }
  scaler_.scale(normalised).backward();
}

torch::Tensor StepCore::model_output(const Batch& batch) {
  AutocastGuard autocast(config_.device.type(), config_.amp_dtype);
  return split_->model_output(laid_out(batch));
}

torch::Tensor StepCore::output_gradient(const torch::Tensor& output, const Batch& batch) {
  const torch::Tensor cut = output.detach().requires_grad_(true);
  torch::Tensor normalised;
  {
    AutocastGuard autocast(config_.device.type(), config_.amp_dtype);
    normalised = weighted(split_->loss_of_output(cut, batch));
  }
  scaler_.scale(normalised).backward();
  return cut.grad();
}

void StepCore::backward_from_output(const torch::Tensor& output, const torch::Tensor& gradient) {
  output.backward(gradient);
}

std::vector<torch::Tensor> StepCore::defined_grads() const {
  std::vector<torch::Tensor> grads;
  grads.reserve(parameters_.size());
  for (const auto& parameter : parameters_) {
    if (parameter.grad().defined()) grads.push_back(parameter.grad());
  }
  return grads;
}

void StepCore::prepare_update() {
  // Summed, not averaged: each rank divided its losses by the samples of all ranks' group.
  gradient_reducer_.all_reduce(defined_grads());
  broadcast_buffers(task_.model(), collective_);
  if (ema_) ema_->advance();
  ++updates_;
}

void StepCore::update() {
  const std::vector<torch::Tensor> grads = defined_grads();
  // The grads are read twice per update, the least that clipping allows (the norm must be
  // known before any grad is used): first for their norm, which also gives the finite check
  // and, divided by the scale, the unscaled pre-clip norm; then by the optimizer, which
  // multiplies each grad by 1/scale x clip coefficient as it reads it and zeroes it in the same
  // pass. Unscaling, clipping and zeroing in passes of their own cost as much as the step.
  const GradFactors factors = grad_factors(grads, scaler_.inv_scale(), config_.grad_clip);
  const torch::Tensor& found_inf = factors.found_inf;
  const torch::Tensor grad_norm = factors.norm.to(torch::kFloat);
  // A skipped update's norm is inf/NaN; it is counted in skipped_sum_ rather than logged.
  grad_norm_sum_ += torch::where(found_inf > 0, torch::zeros_like(grad_norm), grad_norm);
  // A skipped step still zeroes the grads, so the next group starts from zero.
  optimizer_.step(found_inf, factors.multiplier, /*zero_grads=*/true);
  scaler_.update(found_inf);
  skipped_sum_ += found_inf;
  // As Ultralytics does, a skipped update still moves the average (towards unchanged weights).
  if (ema_) ema_->update(task_.model());
}

StepStats StepCore::read_stats() {
  StepStats stats;
  const torch::Tensor losses = loss_sums_.to(torch::kCPU, torch::kDouble);
  stats.loss_sums.assign(losses.data_ptr<double>(), losses.data_ptr<double>() + losses.numel());
  stats.grad_norm = grad_norm_sum_.item<double>() / static_cast<double>(std::max<int64_t>(updates_, 1));
  stats.skipped_updates = static_cast<int64_t>(skipped_sum_.item<double>());
  stats.loss_scale = scaler_.scale_value().item<double>();
  stats.samples = samples_;
  stats.batches = batches_;
  stats.updates = updates_;
  loss_sums_.zero_();
  grad_norm_sum_.zero_();
  skipped_sum_.zero_();
  samples_ = 0;
  batches_ = 0;
  updates_ = 0;
  return stats;
}

}  // namespace trainer
