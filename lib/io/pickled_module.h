// The weights of a pickled torch.nn.Module (`torch.save(model)`, Ultralytics' checkpoints), read
// from the inert record the restricted unpickler builds, without running any of its code.
#pragma once
#include <ATen/core/ivalue.h>

#include <string>

#include "io/checkpoint.h"
#include "io/torch_pickle.h"

namespace trainer {

// Whether `value` is a pickled object with a module's state (`_parameters`, `_buffers`, `_modules`).
bool is_pickled_module(const c10::IValue& value);

// Its parameters, then its persistent buffers, then its children's, recursively, named and
// ordered as Python's `module.state_dict()` names them (`model.0.conv.weight` ...); parameters
// and buffers set to None are left out, as state_dict() does. UserError naming `origin` when a
// module's state is not a module's.
NamedTensors pickled_state_dict(const c10::IValue& module, const std::string& origin);

// The entry `name` of a pickled object's __dict__, or None.
c10::IValue pickled_attribute(const c10::IValue& object, const std::string& name);

}  // namespace trainer
