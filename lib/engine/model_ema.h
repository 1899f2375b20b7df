// Exponential moving average of a model's weights (Ultralytics ModelEMA): validation and the
// saved best weights use the average, which is smoother than the last step's weights.
#pragma once
#include <torch/nn/module.h>
#include <torch/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace trainer {

class ModelEma {
 public:
  // Copies every parameter and buffer of `model`; later calls must pass a module with the same
  // names in the same order.
  ModelEma(torch::nn::Module& model, double decay = 0.9999, double tau = 2000);

  // Host side of an update, before update(): counts it and hands its decay to the device.
  // d = decay * (1 - exp(-updates / tau)) ramps the decay up so that early, poor weights are
  // forgotten quickly.
  void advance();
  // Device side, capturable (a CUDA graph replays it with the decay the last advance() set):
  // floating tensors ema = d * ema + (1 - d) * model; others are copied.
  void update(torch::nn::Module& model);
  // Exchanges the values of the model and the average, each tensor keeping its storage: call once
  // to validate with the average, and again to resume training.
  void swap(torch::nn::Module& model);
  int64_t updates() const;

  // The model's state-dict names plus "updates"; live tensors.
  std::vector<std::pair<std::string, torch::Tensor>> state() const;
  // Throws UserError naming the first missing or mis-shaped key.
  void load_state(const std::map<std::string, torch::Tensor>& state);

 private:
  double decay_;
  double tau_;
  int64_t updates_ = 0;
  bool swapped_ = false;
  // 0-dim, on the EMA's device: d and 1 - d, both formed in double on the host.
  torch::Tensor decay_now_;
  torch::Tensor complement_now_;
  std::vector<std::pair<std::string, torch::Tensor>> tensors_;  // parameters, then buffers
};

}  // namespace trainer
