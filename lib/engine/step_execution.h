// How a run's steps execute. The loop drives this interface and knows only the eager executor;
// compile/ implements it with CUDA graphs and max-autotune's measured choice
// (compile/compiled_execution.h), so the engine never depends on how a step is compiled.
#pragma once
#include <memory>
#include <vector>

#include "config/settings.h"
#include "dist/collective.h"
#include "engine/execution_config.h"
#include "engine/step_executor.h"
#include "engine/task.h"
#include "engine/training_plan.h"

namespace trainer {

class StepExecution {
 public:
  virtual ~StepExecution() = default;
  // compile=max-autotune: the fastest of `candidates` (simplest first) for this run.
  virtual ExecutionConfig choose(Task& task, const Settings& settings, const TrainingPlan& plan,
                                 const std::vector<ExecutionConfig>& candidates, Collective& collective) const = 0;
  // The executor `config.execution` asks for.
  virtual std::unique_ptr<StepExecutor> make_executor(Task& task, FusedOptimizer& optimizer, LossScaler& scaler,
                                                      ModelEma* ema, const StepConfig& config,
                                                      Collective& collective) const = 0;
};

// Eager steps only, for a Trainer that is not given compile/'s execution (smoke checks, tests): it
// refuses CUDA graphs and measuring, since running eagerly instead would hide that the run does not
// execute as its recipe says.
const StepExecution& eager_execution();

}  // namespace trainer
