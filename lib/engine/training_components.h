// The stateful parts of an update (optimizer, loss scaler, EMA), built one way for a training run
// and for a probe, so that what a probe measures is what training runs.
#pragma once
#include <memory>

#include <torch/nn/module.h>

#include "config/settings.h"
#include "engine/model_ema.h"
#include "engine/training_plan.h"
#include "optim/fused_optimizer.h"
#include "optim/loss_scaler.h"

namespace trainer {

struct TrainingComponents {
  std::unique_ptr<FusedOptimizer> optimizer;
  std::unique_ptr<LossScaler> scaler;
  std::unique_ptr<ModelEma> ema;  ///< null when the recipe turns EMA off
};

// Built over `model` as it is now: its parameters' layout is what the optimizer's buffers take.
TrainingComponents build_training_components(const Settings& settings, const TrainingPlan& plan,
                                             torch::nn::Module& model);

}  // namespace trainer
