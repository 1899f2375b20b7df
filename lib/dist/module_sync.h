// Makes every rank's copy of a module equal to rank 0's.
#pragma once
#include <torch/nn/module.h>

#include "dist/collective.h"

namespace trainer {

// Parameters and buffers, once before training (R17: rank 0's initial weights win, whatever each
// rank drew or loaded).
void broadcast_parameters_and_buffers(torch::nn::Module& module, Collective& collective);
// Buffers, after every update: BatchNorm moves its running statistics with each rank's own
// micro-batches, so without this the ranks' models drift apart (DistributedDataParallel
// broadcasts buffers before every forward for the same reason). Rank 0's statistics win.
void broadcast_buffers(torch::nn::Module& module, Collective& collective);

}  // namespace trainer
