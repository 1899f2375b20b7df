// SGD (Nesterov), AdamW, Adam, Adadelta, MuSGD and timm's RMSpropTF in one object whose step touches each parameter's
// memory once. torch::optim's C++ optimizers run ~9 separate tensor ops per parameter and keep
// host-side step counters; on CPU the fused pass is an order of magnitude faster, and keeping every
// counter in a tensor lets a device-side found_inf skip a step without a host sync.
#pragma once
#include <torch/types.h>

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "config/setting_types.h"

namespace trainer {

// What the schedule drives a group as: weights and norm scales follow the LR, biases warm up
// from their own LR.
enum class ParamRole { weights, norm, bias };

struct ParamGroup {
  std::string name;
  std::vector<torch::Tensor> params;
  double lr = 0;
  double weight_decay = 0;
  ParamRole role = ParamRole::weights;
  double lr_scale = 1;  ///< set_lr(group, lr) gives the group lr * lr_scale
  bool muon = false;    ///< MuSGD: Muon's orthogonalised update on top of SGD's (matrices only)
};

struct FusedOptimizerOptions {
  OptimizerKind kind = OptimizerKind::sgd;
  double momentum = 0.937;  ///< SGD and RMSpropTF momentum, Adam and AdamW beta1
  double beta2 = 0.999;
  double eps = 1e-8;  ///< Adam, AdamW, Adadelta, RMSpropTF
  double rho = 0.95;  ///< Adadelta
  double alpha = 0.9;  ///< RMSpropTF: decay of the running mean square (timm fixes it at 0.9)
  bool nesterov = true;
  double muon_scale = 0.2, sgd_scale = 1.0;  ///< MuSGD: each part's share of a muon group's LR
};

// Numerics follow torch.optim.SGD (coupled weight decay, dampening 0, first buffer = grad),
// torch.optim.AdamW (decoupled weight decay, bias correction, per-parameter step, no amsgrad),
// torch.optim.Adam (the same with coupled weight decay) and torch.optim.Adadelta (coupled weight
// decay), and Ultralytics' MuSGD (optim/muon.py: SGD, plus in its `muon` groups a Muon update of
// lr * muon_scale before the SGD one of lr * sgd_scale, whose weight decay sees the parameter the
// Muon update moved), and timm's RMSpropTF (timm/optim/rmsprop_tf.py with create_optimizer's
// alpha 0.9: square_avg starts at ones and moves by (grad² − square_avg)·(1 − alpha), eps inside
// the square root, coupled weight decay, lr accumulated in the momentum buffer: buf = momentum·buf
// + lr·grad/√(square_avg + eps), param −= buf). State is named as in torch.optim's state_dict,
// MuSGD's and timm's: momentum_buffer; exp_avg, exp_avg_sq and step; square_avg, acc_delta and
// step; momentum_buffer (Muon's average) and momentum_buffer_SGD in muon groups; square_avg,
// momentum_buffer and step.
class FusedOptimizer {
 public:
  // Throws UserError when options.kind is still `automatic`: the recipe layer resolves it.
  FusedOptimizer(std::vector<ParamGroup> groups, FusedOptimizerOptions options);

  size_t group_count() const;
  const std::string& group_name(size_t group) const;
  ParamRole group_role(size_t group) const;
  // Both also refill the device-side copies that the tensor ops (and a captured update) read;
  // set_lr scales `lr` by the group's lr_scale.
  void set_lr(size_t group, double lr);
  double lr(size_t group) const;
  // Applies to every group from the next step on (warmup ramps it).
  void set_momentum(double momentum);

  // Updates every parameter that has a defined grad. A non-zero found_inf (0-dim, on the
  // parameters' device) skips the whole update: parameters, buffers and step counters stay as
  // they were. A CPU found_inf is read directly; any other is applied on the device.
  // grad_scale (0-dim, optional) multiplies every grad as it is read, so that unscaling and
  // clipping cost no pass of their own (PyTorch 2.x's _fused_adamw_ takes it the same way);
  // the grads themselves are left as they were. zero_grads writes 0 into each grad once it is
  // read, which saves zero_grad()'s pass; on a skipped step the grads are zeroed all the same.
  void step(const torch::Tensor& found_inf = {}, const torch::Tensor& grad_scale = {},
            bool zero_grads = false);
  // Zeroes grads in place, so they keep their storage (CUDA graphs rely on stable addresses).
  void zero_grad();

  // Live tensors (buffers, step counters) plus per-group lr and momentum as 0-dim float64, named
  // "group.<g>.param.<i>.<buffer>" and "group.<g>.<lr|momentum>". Clone them to keep a snapshot.
  std::vector<std::pair<std::string, torch::Tensor>> state() const;
  // Copies a state() into this optimizer; throws UserError naming the first missing or
  // mis-shaped key and then changes nothing. Keys it does not know are ignored.
  void load_state(const std::map<std::string, torch::Tensor>& state);

 private:
  // Buffers are created zeroed up front: a zero momentum buffer makes the first SGD update
  // buffer = grad, exactly as torch's lazy clone, and a fixed key set makes load_state strict.
  struct ParamState {
    torch::Tensor momentum_buffer;  // sgd, rmsproptf, musgd (in muon groups Muon's average)
    torch::Tensor momentum_buffer_sgd;  // musgd's muon groups
    torch::Tensor exp_avg;          // adam, adamw
    torch::Tensor exp_avg_sq;       // adam, adamw
    torch::Tensor square_avg;       // adadelta, rmsproptf (starting at 1)
    torch::Tensor acc_delta;        // adadelta
    torch::Tensor step;             // all but sgd, 0-dim float32 on the parameter's device
  };
  struct Group {
    ParamGroup spec;
    double momentum = 0;
    // spec.lr and momentum as 0-dim float64 on the parameters' device, for the tensor ops: a
    // captured update reads them there, so a new schedule value needs no new capture.
    torch::Tensor lr_value;
    torch::Tensor momentum_value;
    std::vector<ParamState> states;
  };

  // One group's CUDA parameters for torch's fused kernel, gathered in one step() call.
  struct DeviceFused {
    std::vector<torch::Tensor> params, grads, momentum_buffers, exp_avgs, exp_avg_sqs, steps;
    // One launch takes one device and dtype: the first parameter's.
    bool takes(const torch::Tensor& param) const;
    void add(const torch::Tensor& param, const torch::Tensor& grad, ParamState& state);
  };

  std::vector<std::pair<std::string, const torch::Tensor*>> named_buffers(const ParamState& state) const;
  // The raw CPU loops' work of one step, run in one parallel pass per optimizer kind.
  struct CpuSlices;
  // Queues the parameter for the raw CPU loops when its tensors allow; false leaves it to the other paths.
  bool queue_on_cpu(const Group& group, const torch::Tensor& param, const torch::Tensor& grad, ParamState& state,
                    float grad_scale, CpuSlices& slices) const;
  // Whether torch's fused device kernel can take the parameter (never for Adadelta, which has none).
  bool fits_device_fused(const Group& group, const torch::Tensor& param, const torch::Tensor& grad,
                         const ParamState& state) const;
  // The path for non-CPU, non-float32 or strided tensors, and for device-side skips and
  // scales. `grad` is the parameter's grad already multiplied by the grad scale.
  void update_with_tensor_ops(const Group& group, const torch::Tensor& param, const torch::Tensor& grad,
                              ParamState& state, const torch::Tensor& skip) const;
  void sgd_with_tensor_ops(const Group& group, const torch::Tensor& param,
                           const torch::Tensor& grad, ParamState& state,
                           const torch::Tensor& skip) const;
  void muon_with_tensor_ops(const Group& group, const torch::Tensor& param, const torch::Tensor& grad,
                            ParamState& state, const torch::Tensor& skip) const;
  // Whether the group updates as plain SGD: SGD's, and MuSGD's groups without Muon.
  bool plain_sgd(const Group& group) const;
  // Adam (coupled weight decay) and AdamW (decoupled).
  void adam_with_tensor_ops(const Group& group, const torch::Tensor& param, const torch::Tensor& grad,
                            ParamState& state, const torch::Tensor& skip) const;
  void adadelta_with_tensor_ops(const Group& group, const torch::Tensor& param, const torch::Tensor& grad,
                                ParamState& state, const torch::Tensor& skip) const;
  void rmsprop_tf_with_tensor_ops(const Group& group, const torch::Tensor& param, const torch::Tensor& grad,
                                  ParamState& state, const torch::Tensor& skip) const;
  // What the fused kernels take in place of step()'s grad_scale and skip, converted once a step
  // for all groups (the kernels skip on a float 1.0 and divide the grads where we multiply).
  struct DeviceFusedInputs {
    torch::Device device;
    torch::Tensor found_inf;     // float 0 or 1; undefined when nothing can skip
    torch::Tensor grad_divisor;  // 1 / grad_scale; undefined without a scale
    torch::Tensor step_count;    // Adam(W)'s counter increment: 0 on a skipped step
    DeviceFusedInputs(const torch::Device& device, const torch::Tensor& grad_scale, const torch::Tensor& skip);
  };
  // CUDA parameters where LibTorch has torch.optim's fused kernels (2.4+): one launch for the
  // group. A skip keeps everything as it is.
  void step_fused_on_device(const Group& group, const DeviceFused& fused, const DeviceFusedInputs& inputs) const;

  FusedOptimizerOptions options_;
  std::vector<Group> groups_;
};

}  // namespace trainer
