// Ultralytics-style parameter groups: decay on weights only, never on norm weights or biases;
// biases get their own group because warmup drives their LR differently. For MuSGD, Ultralytics
// 8.4's: every matrix (ndim >= 2) in a Muon group with decay, and every group split so that the
// parameters named with both "23" and "cv3" (YOLO26's class branches, Detect being layer 23)
// train at three times the LR.
#pragma once
#include <vector>

#include <torch/nn/module.h>

#include "optim/fused_optimizer.h"

namespace trainer {

std::vector<ParamGroup> make_param_groups(torch::nn::Module& model, double lr, double weight_decay,
                                          bool muon = false);

}  // namespace trainer
