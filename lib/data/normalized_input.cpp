#include "data/normalized_input.h"

#include <c10/util/Exception.h>

namespace trainer {

NormalizationSteps normalization_steps(const Normalization& norm) {
  NormalizationSteps steps;
  for (size_t c = 0; c < norm.mean.size(); ++c) {
    steps.scale.push_back(float(1.0 / (255.0 * norm.std[c])));
    steps.offset.push_back(float(-norm.mean[c] / norm.std[c]));
  }
  return steps;
}

torch::Tensor normalized_input(const torch::Tensor& input, const Normalization& norm) {
  if (input.scalar_type() != torch::kUInt8) return input;
  const int64_t channels = input.size(1);
  TORCH_INTERNAL_ASSERT(input.dim() == 4 && norm.mean.size() == size_t(channels), "pixels [B, ", channels,
                        ", H, W] against a normalisation of ", norm.mean.size(), " channels");
  const NormalizationSteps steps = normalization_steps(norm);
  const torch::Tensor values = input.to(torch::kFloat);
  std::vector<torch::Tensor> planes;
  for (int64_t c = 0; c < channels; ++c) {
    // Scalars reach the kernel as float32 arguments: the products and sums of the CPU collate.
    planes.push_back(values.narrow(1, c, 1).mul(double(steps.scale[size_t(c)])).add(double(steps.offset[size_t(c)])));
  }
  const torch::Tensor normalised = channels == 1 ? planes.front() : torch::cat(planes, 1);
  return normalised.contiguous(input.suggest_memory_format());
}

}  // namespace trainer
