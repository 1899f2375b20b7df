// Dynamic loss scaling for fp16 training (LibTorch has no C++ GradScaler). The scale and its
// growth tracker live on the training device and every decision is a tensor op, so a step never
// waits for the host; on CUDA the fused AMP kernels do the work, elsewhere ordinary ops do.
#pragma once
#include <torch/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace trainer {

struct LossScalerOptions {
  double init_scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
};

class LossScaler {
 public:
  // A disabled scaler keeps a scale of 1 but still reports non-finite grads, so fp32 and bf16
  // runs skip NaN steps the same way fp16 runs do.
  LossScaler(bool enabled, torch::Device device, LossScalerOptions options = {});

  bool enabled() const;
  torch::Tensor scale(const torch::Tensor& loss) const;
  // Divides every defined grad by the scale in place and returns found_inf: a 0-dim float32 on
  // the device, 1 when any grad holds an inf or NaN. StepCore does not call it: it folds
  // inv_scale() into the optimizer's pass and takes found_inf from the grad norm instead.
  torch::Tensor unscale_(const std::vector<torch::Tensor>& grads);
  // 0-dim float32 on the device: 1 / scale, taken in double as torch.cuda.amp does, so it is
  // exact for the powers of two the scale always is. 1 when disabled.
  torch::Tensor inv_scale() const;
  // Backs off (and restarts the growth count) after an overflow; grows after growth_interval
  // clean updates in a row. No-op when disabled.
  void update(const torch::Tensor& found_inf);
  // 0-dim float32: the factor scale() multiplies by.
  torch::Tensor scale_value() const;

  // "scale" and "growth_tracker", live tensors.
  std::vector<std::pair<std::string, torch::Tensor>> state() const;
  // Throws UserError naming a missing or mis-shaped key.
  void load_state(const std::map<std::string, torch::Tensor>& state);

 private:
  bool enabled_;
  LossScalerOptions options_;
  torch::Tensor scale_;           // float32, 0-dim
  torch::Tensor growth_tracker_;  // int32, 0-dim: what _amp_update_scale_ expects
};

}  // namespace trainer
