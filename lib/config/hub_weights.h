// Where timm's bare --pretrained finds a model's released weights without downloading them: the
// local Hugging Face hub cache, as huggingface_hub lays it out
// (`$HF_HUB_CACHE`, else `$HF_HOME/hub`, else `~/.cache/huggingface/hub`:
// `models--timm--NAME.TAG/snapshots/REVISION/model.safetensors` or `pytorch_model.bin`), then
// torch hub's checkpoints folder (`$TORCH_HOME/hub/checkpoints`, else
// `~/.cache/torch/hub/checkpoints`: torchvision's `NAME-HASH.pth`).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace trainer {

struct HubWeights {
  std::optional<std::string> file;  // the weights found
  std::vector<std::string> looked;  // where they were looked for, as patterns, for the error
};

// `model` is timm's name, with or without its tag (resnet50, resnet50.a1_in1k); a bare name takes
// timm's default tag of the architecture (its pretrained_cfg: the first tag timm's resnet.py lists,
// resnet50.a1_in1k), or an untagged repository; an architecture without a known default tag takes
// the first tag found in the cache in name order.
HubWeights find_hub_weights(const std::string& model);

}  // namespace trainer
