// The random generators' states as named tensors: what a checkpoint saves for an exact resume and
// what a probe puts back after its updates.
#pragma once
#include "io/checkpoint.h"

namespace trainer {

// {"cpu": the default CPU generator's state}. CUDA generators are not saved yet (no GPU path to test).
NamedTensors generator_states();
// Sets every generator named in `states`; names it does not know are skipped.
void restore_generators(const NamedTensors& states);

}  // namespace trainer
