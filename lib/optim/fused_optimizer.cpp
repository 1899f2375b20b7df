#include "optim/fused_optimizer.h"

#include <ATen/Parallel.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <sstream>

#include "optim/muon.h"
#include "util/error.h"
#include "util/graph_capture.h"
#include "util/torch_compat.h"

namespace trainer {
namespace {

// The raw-pointer kernels below walk the storage linearly, which is only the tensor when it is
// dense, and only lines up element for element when grad and buffers share the param's layout.
bool cpu_fast_path(const torch::Tensor& param, std::initializer_list<const torch::Tensor*> others) {
  if (!param.is_cpu() || param.scalar_type() != torch::kFloat ||
      !param.is_non_overlapping_and_dense()) {
    return false;
  }
  for (const torch::Tensor* other : others) {
    if (!other->is_cpu() || other->scalar_type() != torch::kFloat ||
        other->strides() != param.strides()) {
      return false;
    }
  }
  return true;
}

// torch's fused kernels take a CUDA parameter when its grad and buffers match it element for
// element (as the raw CPU loops need on the CPU).
bool device_fused_path(const torch::Tensor& param, std::initializer_list<const torch::Tensor*> others) {
  if (!compat::kHasFusedOptimizers || !param.is_cuda() || !param.is_non_overlapping_and_dense()) return false;
  for (const torch::Tensor* other : others) {
    if (other->device() != param.device() || other->scalar_type() != param.scalar_type() ||
        other->strides() != param.strides()) {
      return false;
    }
  }
  return true;
}

// Out-of-place result written back, or kept out when the device says the step is skipped.
void commit(const torch::Tensor& target, const torch::Tensor& value, const torch::Tensor& skip) {
  target.copy_(skip.defined() ? torch::where(skip, target, value) : value);
}

// One CPU parameter's update with every coefficient resolved to float, as torch's kernels do.
// grad_scale is 1 when the caller gave none: multiplying by 1 is exact, so one loop serves both.
struct SgdSlice {
  float* p;
  float* g;
  float* buf;
  int64_t numel;
  float grad_scale, weight_decay, momentum, neg_lr;
  bool nesterov;
};

// Adam and AdamW: Adam adds coupled_decay · param to the grad, AdamW multiplies the param by decay.
struct AdamSlice {
  float* p;
  float* g;
  float* m;
  float* v;
  int64_t numel;
  float grad_scale, coupled_decay, decay, beta1, beta2, one_minus_beta1, one_minus_beta2, sqrt_bias_correction2, eps,
      neg_step_size;
};

struct AdadeltaSlice {
  float* p;
  float* g;
  float* square_avg;
  float* acc_delta;
  int64_t numel;
  float grad_scale, weight_decay, rho, one_minus_rho, eps, neg_lr;
};

struct RmspropTfSlice {
  float* p;
  float* g;
  float* square_avg;
  float* buf;
  int64_t numel;
  float grad_scale, weight_decay, one_minus_alpha, eps, momentum, lr;
};

// The grad is scaled as it is read (the same float product as `grads *= scale` beforehand) and,
// with kZeroGrad, zeroed while its cache line is at hand instead of in a pass of its own.
// The pointers are distinct tensors; __restrict__ spares the vectoriser its overlap checks.
template <bool kZeroGrad>
void sgd_kernel(const SgdSlice& s, int64_t begin, int64_t end) {
  float* __restrict__ p = s.p;
  float* __restrict__ g = s.g;
  float* __restrict__ buf = s.buf;
  for (int64_t j = begin; j < end; ++j) {
    const float grad = g[j] * s.grad_scale;
    if (kZeroGrad) g[j] = 0;
    const float d = grad + s.weight_decay * p[j];
    const float b = buf[j] * s.momentum + d;
    buf[j] = b;
    p[j] = p[j] + s.neg_lr * (s.nesterov ? d + s.momentum * b : b);
  }
}

// Same operation order as torch's Adam and AdamW, so results agree to rounding.
template <bool kZeroGrad>
void adam_kernel(const AdamSlice& s, int64_t begin, int64_t end) {
  float* __restrict__ p = s.p;
  float* __restrict__ g = s.g;
  float* __restrict__ m_buf = s.m;
  float* __restrict__ v_buf = s.v;
  const bool coupled = s.coupled_decay != 0;
  for (int64_t j = begin; j < end; ++j) {
    const float scaled = g[j] * s.grad_scale;
    const float grad = coupled ? scaled + s.coupled_decay * p[j] : scaled;
    if (kZeroGrad) g[j] = 0;
    const float m = m_buf[j] * s.beta1 + grad * s.one_minus_beta1;
    const float v = v_buf[j] * s.beta2 + s.one_minus_beta2 * grad * grad;
    const float denom = std::sqrt(v) / s.sqrt_bias_correction2 + s.eps;
    m_buf[j] = m;
    v_buf[j] = v;
    p[j] = p[j] * s.decay + s.neg_step_size * m / denom;
  }
}

// Same operation order as torch's Adadelta.
template <bool kZeroGrad>
void adadelta_kernel(const AdadeltaSlice& s, int64_t begin, int64_t end) {
  float* __restrict__ p = s.p;
  float* __restrict__ g = s.g;
  float* __restrict__ square_avg = s.square_avg;
  float* __restrict__ acc_delta = s.acc_delta;
  for (int64_t j = begin; j < end; ++j) {
    const float grad = g[j] * s.grad_scale + s.weight_decay * p[j];
    if (kZeroGrad) g[j] = 0;
    const float avg = square_avg[j] * s.rho + s.one_minus_rho * grad * grad;
    const float delta = std::sqrt(acc_delta[j] + s.eps) / std::sqrt(avg + s.eps) * grad;
    square_avg[j] = avg;
    acc_delta[j] = acc_delta[j] * s.rho + s.one_minus_rho * delta * delta;
    p[j] = p[j] + s.neg_lr * delta;
  }
}

// Same operation order as timm's RMSpropTF. The slice's tensors are distinct (ivdep tells the
// vectoriser so, as __restrict__ does in the kernels above).
template <bool kZeroGrad>
void rmsprop_tf_kernel(const RmspropTfSlice& s, int64_t begin, int64_t end) {
#pragma GCC ivdep
  for (int64_t j = begin; j < end; ++j) {
    const float grad = s.g[j] * s.grad_scale + s.weight_decay * s.p[j];
    if (kZeroGrad) s.g[j] = 0;
    const float mean_square = s.square_avg[j] + s.one_minus_alpha * (grad * grad - s.square_avg[j]);
    s.square_avg[j] = mean_square;
    s.buf[j] = s.buf[j] * s.momentum + s.lr * (grad / std::sqrt(mean_square + s.eps));
    s.p[j] -= s.buf[j];
  }
}

// All slices share one parallel region, split by element count: a model has many small tensors,
// and on a busy 2-core machine each region's barrier can cost a scheduler slice.
template <typename Slice>
void update_in_one_pass(const std::vector<Slice>& slices,
                        void (*kernel)(const Slice&, int64_t, int64_t)) {
  std::vector<int64_t> offsets{0};
  for (const Slice& slice : slices) offsets.push_back(offsets.back() + slice.numel);
  at::parallel_for(0, offsets.back(), at::internal::GRAIN_SIZE, [&](int64_t begin, int64_t end) {
    size_t k = std::upper_bound(offsets.begin(), offsets.end(), begin) - offsets.begin() - 1;
    while (begin < end) {
      const int64_t stop = std::min(end, offsets[k + 1]);
      kernel(slices[k], begin - offsets[k], stop - offsets[k]);
      begin = stop;
      ++k;
    }
  });
}

std::string shape_text(torch::IntArrayRef sizes) {
  std::ostringstream out;
  out << sizes;
  return out.str();
}

}  // namespace

FusedOptimizer::FusedOptimizer(std::vector<ParamGroup> groups, FusedOptimizerOptions options)
    : options_(options) {
  if (options_.kind == OptimizerKind::automatic) {
    throw UserError(
        "optimizer 'auto' must be resolved to sgd, adamw, adam, adadelta, musgd or rmsproptf before it is built");
  }
  torch::NoGradGuard no_grad;
  const auto zeros = [](const torch::Tensor& param) { return torch::zeros_like(param, torch::MemoryFormat::Preserve); };
  for (ParamGroup& spec : groups) {
    Group group;
    group.momentum = options_.momentum;
    for (const torch::Tensor& param : spec.params) {
      ParamState state;
      switch (options_.kind) {
        case OptimizerKind::sgd:
          state.momentum_buffer = zeros(param);
          break;
        case OptimizerKind::musgd:
          state.momentum_buffer = zeros(param);
          if (spec.muon) state.momentum_buffer_sgd = zeros(param);
          break;
        case OptimizerKind::adadelta:
          state.square_avg = zeros(param);
          state.acc_delta = zeros(param);
          break;
        case OptimizerKind::rmsproptf:
          state.square_avg = torch::ones_like(param, torch::MemoryFormat::Preserve);  // timm's, not torch's zeros
          state.momentum_buffer = zeros(param);
          break;
        default:
          state.exp_avg = zeros(param);
          state.exp_avg_sq = zeros(param);
      }
      if (options_.kind != OptimizerKind::sgd && options_.kind != OptimizerKind::musgd) {
        state.step = torch::zeros({}, param.options().dtype(torch::kFloat));
      }
      group.states.push_back(std::move(state));
    }
    const auto scalar_options = torch::TensorOptions()
                                    .dtype(torch::kFloat64)
                                    .device(spec.params.empty() ? torch::Device(torch::kCPU) : spec.params[0].device());
    group.lr_value = torch::full({}, spec.lr, scalar_options);
    group.momentum_value = torch::full({}, group.momentum, scalar_options);
    group.spec = std::move(spec);
    groups_.push_back(std::move(group));
  }
}

size_t FusedOptimizer::group_count() const { return groups_.size(); }

const std::string& FusedOptimizer::group_name(size_t group) const {
  return groups_.at(group).spec.name;
}

ParamRole FusedOptimizer::group_role(size_t group) const { return groups_.at(group).spec.role; }

void FusedOptimizer::set_lr(size_t group, double lr) {
  ParamGroup& spec = groups_.at(group).spec;
  spec.lr = lr * spec.lr_scale;
  groups_[group].lr_value.fill_(spec.lr);
}

bool FusedOptimizer::plain_sgd(const Group& group) const {
  return options_.kind == OptimizerKind::sgd || (options_.kind == OptimizerKind::musgd && !group.spec.muon);
}

double FusedOptimizer::lr(size_t group) const { return groups_.at(group).spec.lr; }

void FusedOptimizer::set_momentum(double momentum) {
  for (Group& group : groups_) {
    group.momentum = momentum;
    group.momentum_value.fill_(momentum);
  }
}

struct FusedOptimizer::CpuSlices {
  std::vector<SgdSlice> sgd;
  std::vector<AdamSlice> adam;
  std::vector<AdadeltaSlice> adadelta;
  std::vector<RmspropTfSlice> rmsprop_tf;

  template <bool kZeroGrad>
  void run() const {
    update_in_one_pass(sgd, sgd_kernel<kZeroGrad>);
    update_in_one_pass(adam, adam_kernel<kZeroGrad>);
    update_in_one_pass(adadelta, adadelta_kernel<kZeroGrad>);
    update_in_one_pass(rmsprop_tf, rmsprop_tf_kernel<kZeroGrad>);
  }
};

void FusedOptimizer::step(const torch::Tensor& found_inf, const torch::Tensor& grad_scale,
                          bool zero_grads) {
  torch::NoGradGuard no_grad;
  torch::Tensor skip;
  if (found_inf.defined()) {
    if (found_inf.is_cpu()) {
      if (found_inf.item<double>() != 0) {
        // Nothing is updated, but the caller has given up these grads either way.
        if (zero_grads) zero_grad();
        return;
      }
    } else {
      skip = found_inf.ne(0);
    }
  }
  // A CPU scale is read here once for the raw loops; a device scale stays a tensor, which the
  // tensor ops and the fused device kernels apply.
  const bool host_scale = !grad_scale.defined() || grad_scale.is_cpu();
  const float fast_scale = grad_scale.defined() && host_scale ? grad_scale.item<float>() : 1.0f;
  const bool fast_allowed = !skip.defined() && host_scale;
  // The fused kernels write the grads back divided by the scale: only where the caller gives them up.
  const bool device_fused_allowed = zero_grads || !grad_scale.defined();
  CpuSlices slices;
  std::vector<torch::Tensor> zero_after;  // grads the tensor ops read; the loops zero their own
  std::optional<DeviceFusedInputs> fused_inputs;
  for (Group& group : groups_) {
    DeviceFused fused;
    for (size_t i = 0; i < group.spec.params.size(); ++i) {
      const torch::Tensor& param = group.spec.params[i];
      const torch::Tensor& grad = param.grad();
      if (!grad.defined()) continue;
      ParamState& state = group.states[i];
      if (fast_allowed && queue_on_cpu(group, param, grad, state, fast_scale, slices)) continue;
      if (device_fused_allowed && fused.takes(param) && fits_device_fused(group, param, grad, state)) {
        fused.add(param, grad, state);
      } else {
        update_with_tensor_ops(group, param, grad_scale.defined() ? grad * grad_scale : grad, state, skip);
      }
      // The tensor ops above have read the grad (their results are committed) and the group's fused
      // kernel is queued before the zeroing below, so it may go.
      if (zero_grads) zero_after.push_back(grad);
    }
    if (fused.params.empty()) continue;
    if (!fused_inputs || fused_inputs->device != fused.params.front().device()) {
      fused_inputs.emplace(fused.params.front().device(), grad_scale, skip);
    }
    step_fused_on_device(group, fused, *fused_inputs);
  }
  if (!zero_after.empty()) at::_foreach_zero_(zero_after);
  if (zero_grads) {
    slices.run<true>();
  } else {
    slices.run<false>();
  }
}

bool FusedOptimizer::queue_on_cpu(const Group& group, const torch::Tensor& param, const torch::Tensor& grad,
                                  ParamState& state, float grad_scale, CpuSlices& slices) const {
  const double lr = group.spec.lr;
  const double weight_decay = group.spec.weight_decay;
  if (group.spec.muon) return false;  // Muon's matrix products take the tensor ops
  if (plain_sgd(group)) {
    if (!cpu_fast_path(param, {&grad, &state.momentum_buffer})) return false;
    slices.sgd.push_back({param.data_ptr<float>(), grad.data_ptr<float>(), state.momentum_buffer.data_ptr<float>(),
                          param.numel(), grad_scale, static_cast<float>(weight_decay),
                          static_cast<float>(group.momentum), static_cast<float>(-lr), options_.nesterov});
    return true;
  }
  if (!state.step.is_cpu()) return false;
  if (options_.kind == OptimizerKind::adadelta) {
    if (!cpu_fast_path(param, {&grad, &state.square_avg, &state.acc_delta})) return false;
    *state.step.data_ptr<float>() += 1;
    slices.adadelta.push_back({param.data_ptr<float>(), grad.data_ptr<float>(), state.square_avg.data_ptr<float>(),
                               state.acc_delta.data_ptr<float>(), param.numel(), grad_scale,
                               static_cast<float>(weight_decay), static_cast<float>(options_.rho),
                               static_cast<float>(1 - options_.rho), static_cast<float>(options_.eps),
                               static_cast<float>(-lr)});
    return true;
  }
  if (options_.kind == OptimizerKind::rmsproptf) {
    if (!cpu_fast_path(param, {&grad, &state.square_avg, &state.momentum_buffer})) return false;
    *state.step.data_ptr<float>() += 1;
    slices.rmsprop_tf.push_back({param.data_ptr<float>(), grad.data_ptr<float>(), state.square_avg.data_ptr<float>(),
                                 state.momentum_buffer.data_ptr<float>(), param.numel(), grad_scale,
                                 static_cast<float>(weight_decay), static_cast<float>(1 - options_.alpha),
                                 static_cast<float>(options_.eps), static_cast<float>(group.momentum),
                                 static_cast<float>(lr)});
    return true;
  }
  if (!cpu_fast_path(param, {&grad, &state.exp_avg, &state.exp_avg_sq})) return false;
  float& step = *state.step.data_ptr<float>();
  step += 1;
  const bool decoupled = options_.kind == OptimizerKind::adamw;
  const double beta1 = group.momentum;
  const double beta2 = options_.beta2;
  const double bias_correction1 = 1 - std::pow(beta1, step);
  const double bias_correction2 = 1 - std::pow(beta2, step);
  slices.adam.push_back({param.data_ptr<float>(), grad.data_ptr<float>(), state.exp_avg.data_ptr<float>(),
                         state.exp_avg_sq.data_ptr<float>(), param.numel(), grad_scale,
                         static_cast<float>(decoupled ? 0.0 : weight_decay),
                         static_cast<float>(decoupled ? 1 - lr * weight_decay : 1.0), static_cast<float>(beta1),
                         static_cast<float>(beta2), static_cast<float>(1 - beta1), static_cast<float>(1 - beta2),
                         static_cast<float>(std::sqrt(bias_correction2)), static_cast<float>(options_.eps),
                         static_cast<float>(-lr / bias_correction1)});
  return true;
}

bool FusedOptimizer::fits_device_fused(const Group& group, const torch::Tensor& param, const torch::Tensor& grad,
                                       const ParamState& state) const {
  if (plain_sgd(group)) {
    // The kernel with buffers insists on momentum > 0, and takes it as a host number, which a
    // graph would freeze (warmup ramps it).
    return group.momentum > 0 && device_fused_path(param, {&grad, &state.momentum_buffer}) && !capturing_cuda_graph();
  }
  switch (options_.kind) {
    case OptimizerKind::adam:
    case OptimizerKind::adamw:
      return device_fused_path(param, {&grad, &state.exp_avg, &state.exp_avg_sq});
    default:
      return false;
  }
}

void FusedOptimizer::update_with_tensor_ops(const Group& group, const torch::Tensor& param, const torch::Tensor& grad,
                                            ParamState& state, const torch::Tensor& skip) const {
  if (group.spec.muon) return muon_with_tensor_ops(group, param, grad, state, skip);
  if (plain_sgd(group)) return sgd_with_tensor_ops(group, param, grad, state, skip);
  switch (options_.kind) {
    case OptimizerKind::adadelta:
      adadelta_with_tensor_ops(group, param, grad, state, skip);
      break;
    case OptimizerKind::rmsproptf:
      rmsprop_tf_with_tensor_ops(group, param, grad, state, skip);
      break;
    default:
      adam_with_tensor_ops(group, param, grad, state, skip);
  }
}

void FusedOptimizer::sgd_with_tensor_ops(const Group& group, const torch::Tensor& param,
                                         const torch::Tensor& grad, ParamState& state,
                                         const torch::Tensor& skip) const {
  const torch::Tensor& momentum = group.momentum_value;
  const torch::Tensor d = grad.add(param, group.spec.weight_decay);
  const torch::Tensor buf = state.momentum_buffer.mul(momentum).add_(d);
  const torch::Tensor direction = options_.nesterov ? d + buf * momentum : buf;
  commit(state.momentum_buffer, buf, skip);
  commit(param, param - direction * group.lr_value, skip);
}

void FusedOptimizer::muon_with_tensor_ops(const Group& group, const torch::Tensor& param,
                                          const torch::Tensor& grad, ParamState& state,
                                          const torch::Tensor& skip) const {
  const double beta = group.momentum;
  const torch::Tensor average = state.momentum_buffer.lerp(grad, 1 - beta);
  const torch::Tensor direction = muon_direction(grad, average, beta, options_.nesterov).to(param.scalar_type());
  const torch::Tensor moved = param - direction * (group.lr_value * options_.muon_scale);
  // SGD's part, its weight decay taken at the parameter the Muon update moved.
  const torch::Tensor& momentum = group.momentum_value;
  const torch::Tensor d = grad.add(moved, group.spec.weight_decay);
  const torch::Tensor buf = state.momentum_buffer_sgd.mul(momentum).add_(d);
  const torch::Tensor sgd_direction = options_.nesterov ? d + buf * momentum : buf;
  commit(state.momentum_buffer, average, skip);
  commit(state.momentum_buffer_sgd, buf, skip);
  commit(param, moved - sgd_direction * (group.lr_value * options_.sgd_scale), skip);
}

void FusedOptimizer::adam_with_tensor_ops(const Group& group, const torch::Tensor& param,
                                          const torch::Tensor& scaled_grad, ParamState& state,
                                          const torch::Tensor& skip) const {
  const double beta1 = group.momentum;
  const double beta2 = options_.beta2;
  const torch::Tensor& lr = group.lr_value;
  const bool decoupled = options_.kind == OptimizerKind::adamw;
  const double weight_decay = group.spec.weight_decay;
  const torch::Tensor grad = decoupled || weight_decay == 0 ? scaled_grad : scaled_grad.add(param, weight_decay);
  // Counters stay on the device so that a device-side skip needs no sync; the exponent is
  // widened for double parameters so their bias correction is not limited to float precision.
  const torch::Tensor step = skip.defined() ? state.step + skip.logical_not() : state.step + 1;
  const torch::Tensor exponent = step.to(torch::promote_types(param.scalar_type(), torch::kFloat));
  const torch::Tensor bias_correction1 = 1 - torch::pow(beta1, exponent);
  const torch::Tensor bias_correction2 = 1 - torch::pow(beta2, exponent);
  const torch::Tensor m = state.exp_avg.mul(beta1).add_(grad, 1 - beta1);
  const torch::Tensor v = state.exp_avg_sq.mul(beta2).addcmul_(grad, grad, 1 - beta2);
  const torch::Tensor denom = (v.sqrt() / bias_correction2.sqrt()).add_(options_.eps);
  const torch::Tensor decayed = decoupled ? param.mul(1 - lr * weight_decay) : param;
  const torch::Tensor updated = decayed.sub(m / denom * (lr / bias_correction1));
  commit(state.step, step, skip);
  commit(state.exp_avg, m, skip);
  commit(state.exp_avg_sq, v, skip);
  commit(param, updated, skip);
}

void FusedOptimizer::adadelta_with_tensor_ops(const Group& group, const torch::Tensor& param,
                                              const torch::Tensor& scaled_grad, ParamState& state,
                                              const torch::Tensor& skip) const {
  const double rho = options_.rho;
  const double eps = options_.eps;
  const torch::Tensor grad = scaled_grad.add(param, group.spec.weight_decay);
  const torch::Tensor step = skip.defined() ? state.step + skip.logical_not() : state.step + 1;
  const torch::Tensor square_avg = state.square_avg.mul(rho).addcmul_(grad, grad, 1 - rho);
  const torch::Tensor delta = state.acc_delta.add(eps).sqrt_().div_(square_avg.add(eps).sqrt_()).mul_(grad);
  const torch::Tensor acc_delta = state.acc_delta.mul(rho).addcmul_(delta, delta, 1 - rho);
  commit(state.step, step, skip);
  commit(state.square_avg, square_avg, skip);
  commit(state.acc_delta, acc_delta, skip);
  commit(param, param - delta * group.lr_value, skip);
}

void FusedOptimizer::rmsprop_tf_with_tensor_ops(const Group& group, const torch::Tensor& param,
                                                const torch::Tensor& scaled_grad, ParamState& state,
                                                const torch::Tensor& skip) const {
  const torch::Tensor grad = scaled_grad.add(param, group.spec.weight_decay);
  const torch::Tensor step = skip.defined() ? state.step + skip.logical_not() : state.step + 1;
  const torch::Tensor square_avg = state.square_avg.add(grad * grad - state.square_avg, 1 - options_.alpha);
  const torch::Tensor buf =
      state.momentum_buffer.mul(group.momentum_value).add_(grad / square_avg.add(options_.eps).sqrt_() * group.lr_value);
  commit(state.step, step, skip);
  commit(state.square_avg, square_avg, skip);
  commit(state.momentum_buffer, buf, skip);
  commit(param, param - buf, skip);
}

bool FusedOptimizer::DeviceFused::takes(const torch::Tensor& param) const {
  return params.empty() || (param.device() == params.front().device() && param.scalar_type() == params.front().scalar_type());
}

void FusedOptimizer::DeviceFused::add(const torch::Tensor& param, const torch::Tensor& grad, ParamState& state) {
  params.push_back(param);
  grads.push_back(grad);
  if (state.momentum_buffer.defined()) momentum_buffers.push_back(state.momentum_buffer);
  if (state.exp_avg.defined()) {
    exp_avgs.push_back(state.exp_avg);
    exp_avg_sqs.push_back(state.exp_avg_sq);
    steps.push_back(state.step);
  }
}

FusedOptimizer::DeviceFusedInputs::DeviceFusedInputs(const torch::Device& device, const torch::Tensor& grad_scale,
                                                     const torch::Tensor& skip)
    : device(device) {
  if (skip.defined()) {
    found_inf = skip.to(device, torch::kFloat);
    step_count = 1 - found_inf;
  }
  if (grad_scale.defined()) grad_divisor = grad_scale.to(device, torch::kFloat).reciprocal();
}

void FusedOptimizer::step_fused_on_device(const Group& group, const DeviceFused& fused,
                                          const DeviceFusedInputs& inputs) const {
  const torch::Tensor lr = group.lr_value.to(torch::kFloat);
  if (plain_sgd(group)) {
    compat::fused_sgd(fused.params, fused.grads, fused.momentum_buffers, group.spec.weight_decay, group.momentum, lr,
                      options_.nesterov, inputs.grad_divisor, inputs.found_inf);
    return;
  }
  // The Adam(W) kernels read the step counters without counting: count first, not on a skipped
  // step, as torch.optim does.
  if (inputs.step_count.defined()) {
    at::_foreach_add_(fused.steps, std::vector<torch::Tensor>(fused.steps.size(), inputs.step_count));
  } else {
    at::_foreach_add_(fused.steps, 1);
  }
  const auto fused_adam = options_.kind == OptimizerKind::adamw ? compat::fused_adamw : compat::fused_adam;
  fused_adam(fused.params, fused.grads, fused.exp_avgs, fused.exp_avg_sqs, fused.steps, lr, group.momentum,
             options_.beta2, group.spec.weight_decay, options_.eps, inputs.grad_divisor, inputs.found_inf);
}

void FusedOptimizer::zero_grad() {
  std::vector<torch::Tensor> grads;
  for (const Group& group : groups_) {
    for (const torch::Tensor& param : group.spec.params) {
      if (param.grad().defined()) grads.push_back(param.grad());
    }
  }
  if (grads.empty()) return;
  torch::NoGradGuard no_grad;
  at::_foreach_zero_(grads);
}

std::vector<std::pair<std::string, const torch::Tensor*>> FusedOptimizer::named_buffers(
    const ParamState& state) const {
  switch (options_.kind) {
    case OptimizerKind::sgd:
      return {{"momentum_buffer", &state.momentum_buffer}};
    case OptimizerKind::musgd:
      if (state.momentum_buffer_sgd.defined()) {
        return {{"momentum_buffer", &state.momentum_buffer}, {"momentum_buffer_SGD", &state.momentum_buffer_sgd}};
      }
      return {{"momentum_buffer", &state.momentum_buffer}};
    case OptimizerKind::adadelta:
      return {{"square_avg", &state.square_avg}, {"acc_delta", &state.acc_delta}, {"step", &state.step}};
    case OptimizerKind::rmsproptf:
      return {{"square_avg", &state.square_avg}, {"momentum_buffer", &state.momentum_buffer}, {"step", &state.step}};
    default:
      return {{"exp_avg", &state.exp_avg}, {"exp_avg_sq", &state.exp_avg_sq}, {"step", &state.step}};
  }
}

std::vector<std::pair<std::string, torch::Tensor>> FusedOptimizer::state() const {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (size_t g = 0; g < groups_.size(); ++g) {
    const std::string prefix = "group." + std::to_string(g) + ".";
    out.emplace_back(prefix + "lr", torch::scalar_tensor(groups_[g].spec.lr, torch::kFloat64));
    out.emplace_back(prefix + "momentum",
                     torch::scalar_tensor(groups_[g].momentum, torch::kFloat64));
    for (size_t i = 0; i < groups_[g].states.size(); ++i) {
      for (const auto& [name, tensor] : named_buffers(groups_[g].states[i])) {
        out.emplace_back(prefix + "param." + std::to_string(i) + "." + name, *tensor);
      }
    }
  }
  return out;
}

void FusedOptimizer::load_state(const std::map<std::string, torch::Tensor>& state) {
  const std::vector<std::pair<std::string, torch::Tensor>> expected = this->state();
  for (const auto& [key, tensor] : expected) {
    const auto found = state.find(key);
    if (found == state.end()) {
      throw UserError("optimizer state has no '" + key + "' (was it saved by another optimizer "
                      "or model?)");
    }
    if (found->second.sizes() != tensor.sizes()) {
      throw UserError("optimizer state '" + key + "' has shape " +
                      shape_text(found->second.sizes()) + " but this model needs " +
                      shape_text(tensor.sizes()));
    }
  }
  torch::NoGradGuard no_grad;
  for (size_t g = 0; g < groups_.size(); ++g) {
    const std::string prefix = "group." + std::to_string(g) + ".";
    set_lr(g, state.at(prefix + "lr").item<double>());
    groups_[g].momentum = state.at(prefix + "momentum").item<double>();
    groups_[g].momentum_value.fill_(groups_[g].momentum);
    for (size_t i = 0; i < groups_[g].states.size(); ++i) {
      for (const auto& [name, tensor] : named_buffers(groups_[g].states[i])) {
        tensor->copy_(state.at(prefix + "param." + std::to_string(i) + "." + name));
      }
    }
  }
}

}  // namespace trainer
