// Which of a model's parameters train: `freeze` turns layers off, and the counts say what is left.
// A frozen parameter takes no gradient (requires_grad false), so the optimizer, the gradient
// all-reduce, clipping and the captured graphs all leave it out. Norm layers inside frozen
// layers still update their running statistics, as in Ultralytics; norm=frozen_bn fixes those.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <torch/nn/module.h>

#include "config/setting_types.h"

namespace trainer {

struct ParameterCounts {
  int64_t total = 0;      ///< elements of every parameter
  int64_t trainable = 0;  ///< elements of those that take a gradient
};

ParameterCounts count_parameters(const torch::nn::Module& model);

// The model's layers in order, as `freeze=N` counts them: its top-level modules or, when it has
// just one (YOLOv8's `model`), that module's, with or without parameters, so that the indices are
// the originals'. ResNet: conv1, bn1, relu, maxpool, layer1 … layer4, avgpool, fc (torchvision's
// children); CRNN: [Transformation,] FeatureExtraction, [SequenceModeling,] Prediction; YOLOv8: model.0 … model.22,
// so freeze=10 is Ultralytics' backbone.
std::vector<std::string> layer_names(const torch::nn::Module& model);

// The layers `spec` names, frozen; returns their names. A name is a state-dict prefix ending at a
// dot (`layer1`, `model.22.cv3`). Throws UserError, before freezing anything, for a name no
// parameter is under, a count beyond the model's layers, or a freeze that leaves nothing to train.
std::vector<std::string> freeze_layers(torch::nn::Module& model, const FreezeSpec& spec);

// True when `module` or a descendant normalises with batch statistics (BatchNorm1d/2d/3d), so
// small micro-batches hurt it. FrozenBatchNorm2d does not count: it uses running statistics.
bool has_batch_norm(const torch::nn::Module& module);

}  // namespace trainer
