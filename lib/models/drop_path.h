// Stochastic depth (Huang et al. 2016) as timm's DropPath applies it to a residual branch: in
// training, each sample's branch is zeroed with probability `rate` and the kept ones are scaled by
// 1 / (1 − rate), so the expected output is unchanged; in evaluation the branch passes as it is.
// The draw comes from the default generator (torch.bernoulli_), so a seeded run repeats it, and it
// equals Python's for the same seed.
#pragma once
#include <torch/types.h>

namespace trainer {

// `branch` [N, …] with whole samples dropped at `rate` when `training`; `rate` in [0, 1).
torch::Tensor drop_path(const torch::Tensor& branch, double rate, bool training);

// timm's ResNet rule: block `index` of `blocks` (counted over all stages) drops at
// rate × index / (blocks − 1), 0 for the first block and `rate` for the last.
double block_drop_path_rate(double rate, int64_t index, int64_t blocks);

}  // namespace trainer
