#include "engine/step_executor.h"

#include "engine/cuda_graph.h"
#include "engine/eager_executor.h"
#include "engine/graph_executor.h"

namespace trainer {

std::vector<double> StepStats::mean_losses() const {
  std::vector<double> means;
  for (double sum : loss_sums) means.push_back(sum / static_cast<double>(std::max<int64_t>(samples, 1)));
  return means;
}

std::unique_ptr<StepExecutor> make_step_executor(Task& task, FusedOptimizer& optimizer, LossScaler& scaler,
                                                 ModelEma* ema, const StepConfig& config, Collective& collective) {
  // resolve_execution asks for graphs on CUDA devices only, which only CUDA builds have.
  if (config.execution.graphs && config.device.is_cuda()) {
    return std::make_unique<GraphExecutor>(task, optimizer, scaler, ema, config, collective,
                                           cuda_graph_factory(config.device));
  }
  return std::make_unique<EagerExecutor>(task, optimizer, scaler, ema, config, collective);
}

}  // namespace trainer
