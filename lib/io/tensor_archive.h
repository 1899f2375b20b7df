// Files that both LibTorch and Python's torch.load understand: the zip-of-pickle format of
// torch.save. torch::save writes TorchScript archives Python cannot read, and torch::pickle_save
// output needs weights_only=False (the default became True in PyTorch 2.6), hence this pair.
#pragma once
#include <ATen/core/ivalue.h>

#include <string>

namespace trainer {

// Writes `value` (dicts, lists, tuples, tensors, ints, doubles, bools, strings, None) so that
// Python's `torch.load(path, weights_only=True)` opens it; typed lists are written as plain
// lists. Tensors are saved with their whole
// storage and their device. Python before 2.0 reads doubles only with weights_only=False (its
// weights_only unpickler lacks BINFLOAT). Throws UserError when the file cannot be written.
void write_archive(const std::string& path, const c10::IValue& value);

// Reads a file written by write_archive or by Python's torch.save: state dicts (OrderedDicts),
// nested checkpoints, any mix of containers and tensors, loaded onto the CPU (see
// read_torch_pickle). Throws UserError naming the file when it is missing, corrupt, or holds
// pickled Python objects other than containers and tensors (e.g. a whole nn.Module).
c10::IValue read_archive(const std::string& path);

}  // namespace trainer
