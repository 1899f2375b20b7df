// One collated mini-batch, as the training loop consumes it.
#pragma once
#include <torch/torch.h>

#include <cstdint>

namespace trainer {

struct Batch {
  torch::Tensor input;   ///< float32 [B, C, H, W], normalised
  torch::Tensor target;  ///< int64 [B], class indices
  int64_t size = 0;      ///< B; kept apart so a short last batch needs no tensor inspection
};

}  // namespace trainer
