// pretrained=PATH: our checkpoints (EMA weights when present) or a plain state dict saved by
// Python. Mismatched heads are skipped and every skipped key is named.
#pragma once
#include <string>

#include <torch/nn/module.h>

namespace trainer {

void load_pretrained(torch::nn::Module& model, const std::string& path);

}  // namespace trainer
