// pretrained=PATH: our checkpoints (EMA weights when present), a plain state dict saved by
// Python, or a .safetensors file (recognised by extension or content, e.g. `trainer export`'s or
// a hub model's). Mismatched heads are skipped and every skipped key is named.
#pragma once
#include <string>

#include <torch/nn/module.h>

namespace trainer {

void load_pretrained(torch::nn::Module& model, const std::string& path);

}  // namespace trainer
