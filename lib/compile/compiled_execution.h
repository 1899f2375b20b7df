// The engine's StepExecution with everything compile= offers: CUDA graphs on a CUDA device when
// the resolved configuration asks for them, and max-autotune's measured, cached choice.
#pragma once
#include "engine/step_execution.h"

namespace trainer {

const StepExecution& compiled_execution();

}  // namespace trainer
