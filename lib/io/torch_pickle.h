// A restricted reader for files written by Python's torch.save: weight files from torchvision,
// timm, EasyOCR, Ultralytics... LibTorch 1.13's own unpickler cannot read what
// `torch.save(model.state_dict())` writes (an OrderedDict, one-entry dicts, one-element lists),
// and Python's own unpickler runs arbitrary code, so this one implements the pickle opcodes
// torch.save uses and calls nothing but an allow-list of constructors it re-implements itself.
#pragma once
#include <ATen/core/ivalue.h>

#include <string>

namespace trainer {

// Reads a torch.save file: the zip format (PyTorch >= 1.6, and this program's write_archive) or
// the legacy pre-1.6 stream (`_use_new_zipfile_serialization=False`, pickle protocol 2).
//
// Returns dicts and OrderedDicts as GenericDict (string or int keys, insertion order kept),
// lists and tuples as List / Tuple, and ints, floats, bools, strings (bytes too), None and
// tensors (parameters become tensors with their requires_grad). Tensors come back on the CPU
// whatever device they were saved from; tensors saved from one storage share one storage here,
// so views keep their offsets, strides and aliasing.
//
// Throws UserError naming the file when it is missing, corrupt or truncated, big-endian, or when
// its pickle names any Python global outside the allow-list (collections.OrderedDict,
// torch._utils._rebuild_tensor_v2 / _rebuild_parameter(_with_state), torch.*Storage, and
// _codecs.encode / builtins.bytes, how protocol 2 writes bytes): a pickled
// nn.Module, numpy array, argparse.Namespace, TorchScript module, quantized or sparse tensor.
c10::IValue read_torch_pickle(const std::string& path);

}  // namespace trainer
