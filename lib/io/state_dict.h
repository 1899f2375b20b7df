// Named tensors of a module with Python's keys and order, and loading them back with a report
// of what did not fit: the bridge between our models and torchvision / timm weight files.
#pragma once
#include <ATen/core/ivalue.h>
#include <torch/nn/module.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace trainer {

// Each module's parameters, then its buffers, then its children's, recursively: the keys and
// order of Python's `module.state_dict()`. Tensors are detached but share storage with `module`.
std::vector<std::pair<std::string, torch::Tensor>> state_dict(const torch::nn::Module& module);

struct LoadReport {
  std::vector<std::string> missing;     ///< model keys the file lacks
  std::vector<std::string> unexpected;  ///< file keys the model lacks (after prefix stripping)
  std::vector<std::string> mismatched;  ///< "name: file [a, b] vs model [c, d]"
  std::vector<std::string> loaded;      ///< model keys copied from the file
};

// Copies the tensors of `weights` into `module`'s parameters and buffers of the same name and
// shape, converting dtype and device. Keys may carry the `module.` (DataParallel/DDP) and
// `_orig_mod.` (torch.compile) prefixes. With `strict`, any missing, unexpected or mismatched
// key throws UserError with their counts and the first few of each, and nothing is copied.
LoadReport load_state_dict(torch::nn::Module& module,
                           const std::map<std::string, torch::Tensor>& weights, bool strict);

// The dict of name -> tensor in a value read by read_archive. UserError when it is anything else.
std::map<std::string, torch::Tensor> tensor_map(const c10::IValue& dict);

}  // namespace trainer
