// pretrained=PATH: our checkpoints (EMA weights when present), a state dict saved by Python
// (`torch.save(model.state_dict())`), a Python training checkpoint that holds one (timm,
// EasyOCR, torchvision references, Lightning-style scripts), Ultralytics' checkpoints and other
// pickled whole models (read inertly: no code from the file runs), or a .safetensors file (by
// extension or content: `trainer export`'s, a hub model's). Mismatched heads are skipped and
// every skipped key is named.
#pragma once
#include <map>
#include <optional>
#include <string>

#include <torch/nn/module.h>

#include "io/ultralytics_checkpoint.h"

namespace trainer {

// The weights in a pretrained= file and where in it they were found.
struct PretrainedWeights {
  std::map<std::string, torch::Tensor> tensors;
  // "" when the file is a bare state dict, else its entry: "ema" or "model" for our checkpoints
  // (EMA preferred), the first of "state_dict", "model_state_dict", "model", "ema" that holds
  // a state dict for Python's. Python's EMA comes last: scripts differ in whether their EMA
  // weights are the ones to fine-tune from, while their "model" is always the trained one.
  // A pickled whole model (Ultralytics' layout) is read from "ema" when set, else "model", as
  // Ultralytics does.
  std::string entry;
  // What an Ultralytics checkpoint says of its model (scale, classes, names); absent for others.
  std::optional<UltralyticsModel> ultralytics;
};

// UserError naming the file when it holds no state dict where one is looked for.
PretrainedWeights read_pretrained(const std::string& path);

void load_pretrained(torch::nn::Module& model, const std::string& path);

// What val and predict open: a checkpoint of this program, or Ultralytics' own (then
// `ultralytics` is set, and the checkpoint holds its weights as "ema" or "model", no recipe).
struct TrainedFile {
  Checkpoint checkpoint;
  std::optional<UltralyticsModel> ultralytics;
};
TrainedFile read_trained(const std::string& path);

}  // namespace trainer
