#include "engine/step_execution.h"

#include <stdexcept>

#include "engine/eager_executor.h"

namespace trainer {
namespace {

class EagerExecution : public StepExecution {
 public:
  ExecutionConfig choose(Task&, const Settings&, const TrainingPlan&, const std::vector<ExecutionConfig>&,
                         Collective&) const override {
    throw std::logic_error("compile=max-autotune measures its candidates with compile/'s StepExecution "
                           "(Trainer::set_step_execution(compiled_execution()))");
  }
  std::unique_ptr<StepExecutor> make_executor(Task& task, FusedOptimizer& optimizer, LossScaler& scaler,
                                              ModelEma* ema, const StepConfig& config,
                                              Collective& collective) const override {
    if (config.execution.graphs && config.device.is_cuda()) {
      throw std::logic_error("CUDA graphs are compile/'s StepExecution (Trainer::set_step_execution(compiled_execution()))");
    }
    return std::make_unique<EagerExecutor>(task, optimizer, scaler, ema, config, collective);
  }
};

}  // namespace

const StepExecution& eager_execution() {
  static const EagerExecution execution;
  return execution;
}

}  // namespace trainer
