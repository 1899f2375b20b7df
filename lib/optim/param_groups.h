// Ultralytics-style parameter groups: decay on weights only, never on norm weights or biases;
// biases get their own group because warmup drives their LR differently.
#pragma once
#include <vector>

#include <torch/nn/module.h>

#include "optim/fused_optimizer.h"

namespace trainer {

enum ParamGroupIndex : size_t { kWeightGroup = 0, kNormGroup = 1, kBiasGroup = 2 };

std::vector<ParamGroup> make_param_groups(torch::nn::Module& model, double lr, double weight_decay);

}  // namespace trainer
