// Image batches leave the loaders as uint8 pixels, a quarter of the bytes of float32 through host
// memory and PCIe; the task turns them into the model's normalised float input where the step
// runs (on the device, inside a captured step).
#pragma once
#include <torch/torch.h>

#include <vector>

#include "data/image_dataset.h"

namespace trainer {

// (p / 255 - mean) / std for channel c as p * scale[c] + offset[c]: one multiply and one add in
// float32, each rounded on its own, wherever it is computed.
struct NormalizationSteps {
  std::vector<float> scale, offset;
};
NormalizationSteps normalization_steps(const Normalization& norm);

// uint8 pixels [B, C, H, W] as float32 normalised by `norm`, computed on the device they are on,
// from scalars only (nothing copied from the host, so a CUDA graph can hold it), in their memory
// format; the same values, to the bit, as a collate that normalises on the CPU with
// normalization_steps. A float input is taken as normalised already and returned as it is.
torch::Tensor normalized_input(const torch::Tensor& input, const Normalization& norm);

}  // namespace trainer
