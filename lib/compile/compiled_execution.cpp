#include "compile/compiled_execution.h"

#include "compile/autotune.h"
#include "compile/cuda_graph.h"
#include "compile/graph_executor.h"

namespace trainer {
namespace {

class CompiledExecution : public StepExecution {
 public:
  ExecutionConfig choose(Task& task, const Settings& settings, const TrainingPlan& plan,
                         const std::vector<ExecutionConfig>& candidates, Collective& collective) const override {
    return autotune_execution(task, settings, plan, candidates, collective);
  }
  std::unique_ptr<StepExecutor> make_executor(Task& task, FusedOptimizer& optimizer, LossScaler& scaler,
                                              ModelEma* ema, const StepConfig& config,
                                              Collective& collective) const override {
    // resolve_execution asks for graphs on CUDA devices only, which only CUDA builds have.
    if (config.execution.graphs && config.device.is_cuda()) {
      return std::make_unique<GraphExecutor>(task, optimizer, scaler, ema, config, collective,
                                             cuda_graph_factory(config.device));
    }
    return eager_execution().make_executor(task, optimizer, scaler, ema, config, collective);
  }
};

}  // namespace

const StepExecution& compiled_execution() {
  static const CompiledExecution execution;
  return execution;
}

}  // namespace trainer
