// A restricted reader for files written by Python's torch.save: weight files from torchvision,
// timm, EasyOCR, Ultralytics... LibTorch 1.13's own unpickler cannot read what
// `torch.save(model.state_dict())` writes (an OrderedDict, one-entry dicts, one-element lists),
// and Python's own unpickler runs arbitrary code, so this one implements the pickle opcodes
// torch.save uses and calls nothing but an allow-list of constructors it re-implements itself.
#pragma once
#include <ATen/core/ivalue.h>
#include <torch/custom_class.h>

#include <string>

namespace trainer {

// What to do with a pickled Python object (a class instance, e.g. a whole nn.Module).
enum class PythonObjects {
  refuse,  ///< UserError naming its class: the reader of plain containers and tensors
  inert,   ///< kept as a PickledObject when its class is one a model checkpoint holds
};

// A Python object rebuilt as data: its class is never called. Ultralytics pickles its whole
// model (`ultralytics.nn.tasks.DetectionModel`, `torch.nn.modules.conv.Conv2d` ...); each
// instance comes back as its class name, the arguments the pickle passed to the class, and the
// state BUILD gave it (a module's __dict__: `_parameters`, `_buffers`, `_modules`, ...).
struct PickledObject : torch::CustomClassHolder {
  std::string type;   ///< "module.Class"
  c10::IValue args;   ///< a tuple
  c10::IValue state;  ///< None until BUILD
};

// The PickledObject `value` holds, or null.
const PickledObject* pickled_object(const c10::IValue& value);

// Reads a torch.save file: the zip format (PyTorch >= 1.6, and this program's write_archive) or
// the legacy pre-1.6 stream (`_use_new_zipfile_serialization=False`, pickle protocol 2).
//
// Returns dicts and OrderedDicts as GenericDict (string or int keys, insertion order kept),
// lists and tuples as List / Tuple, and ints, floats, bools, strings (bytes too), None and
// tensors (parameters become tensors with their requires_grad). Tensors come back on the CPU
// whatever device they were saved from; tensors saved from one storage share one storage here,
// so views keep their offsets, strides and aliasing.
//
// Sets come back as lists.
//
// Throws UserError naming the file when it is missing, corrupt or truncated, big-endian, or when
// its pickle names any Python global outside the allow-list (collections.OrderedDict,
// torch._utils._rebuild_tensor_v2 / _rebuild_parameter(_with_state), torch.*Storage, and
// _codecs.encode / builtins.bytes, how protocol 2 writes bytes, builtins.set / frozenset): a
// TorchScript module, a quantized or sparse tensor, and with PythonObjects::refuse any pickled
// object (nn.Module, numpy scalar, argparse.Namespace). With PythonObjects::inert, the classes of
// model checkpoints (`ultralytics.*`, `torch.nn.modules.*`, numpy scalars and dtypes,
// SimpleNamespace, argparse.Namespace, pathlib paths) become PickledObjects, and anything else
// (os.system, builtins.eval, subprocess.Popen ...) is refused by name, unrun.
c10::IValue read_torch_pickle(const std::string& path, PythonObjects objects = PythonObjects::refuse);

}  // namespace trainer
