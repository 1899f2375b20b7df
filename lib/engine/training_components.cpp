#include "engine/training_components.h"

#include "optim/param_groups.h"

namespace trainer {

TrainingComponents build_training_components(const Settings& settings, const TrainingPlan& plan,
                                             torch::nn::Module& model) {
  FusedOptimizerOptions optimizer_options;
  optimizer_options.kind = plan.optimizer;
  optimizer_options.momentum = settings.optim.momentum;
  optimizer_options.eps = settings.optim.eps;
  optimizer_options.rho = settings.optim.rho;
  TrainingComponents components;
  components.optimizer = std::make_unique<FusedOptimizer>(make_param_groups(model, plan.lr, plan.weight_decay, plan.optimizer == OptimizerKind::musgd),
                                                          optimizer_options);
  components.scaler = std::make_unique<LossScaler>(plan.loss_scaling, plan.device);
  if (settings.optim.ema) components.ema = std::make_unique<ModelEma>(model, settings.optim.ema_decay, settings.optim.ema_tau);
  return components;
}

}  // namespace trainer
