// YOLOv8's and YOLO11's decoupled detection head (Ultralytics nn/modules/head.py Detect): per
// level a box branch cv2 predicting 4 x reg_max distance-bin logits and a class branch cv3
// predicting class logits (two 3x3 Convs, or in YOLO11, `legacy=False`, two depthwise-separable
// pairs). Decoding and loss live in lib/tasks (box_ops, detection_loss).
#pragma once
#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <vector>

#include "models/yolo_blocks.h"

namespace trainer::yolo {

struct DetectOptions {
  DetectOptions(int64_t classes, std::vector<int64_t> channels)
      : classes_(classes), channels_(std::move(channels)) {}
  TORCH_ARG(int64_t, classes);
  TORCH_ARG(std::vector<int64_t>, channels);  ///< input channels per level, finest first
  TORCH_ARG(std::vector<double>, strides) = std::vector<double>{
      8, 16, 32};                    ///< input pixels per cell, per level
  TORCH_ARG(int64_t, reg_max) = 16;  ///< distance bins per box side
  TORCH_ARG(bool,
            depthwise_classes) = false;  ///< YOLO11's class branch: DWConv 3x3 + Conv 1x1, twice
  // YOLO26's end-to-end head: one2one_cv2 and one2one_cv3, copies of cv2 and cv3 at their
  // initialisation, read on detached features and trained with one target per object.
  TORCH_ARG(bool, end2end) = false;
};

// Ultralytics' frozen Conv2d(reg_max, 1, 1) whose weights 0..reg_max-1 turn bin probabilities into
// an expected distance. It is kept so checkpoints carry `dfl.conv.weight`; decoding computes the
// same expectation with expected_distances (tasks/box_ops.h), exactly as the loss does.
class DFLImpl : public torch::nn::Cloneable<DFLImpl> {
 public:
  explicit DFLImpl(int64_t bins);

  void reset() override;

  int64_t bins;
  torch::nn::Conv2d conv{nullptr};
};
TORCH_MODULE(DFL);

class DetectImpl : public torch::nn::Cloneable<DetectImpl> {
 public:
  explicit DetectImpl(const DetectOptions& options);

  void reset() override;
  // One feature map per level -> per level [B, 4 * reg_max + classes, H_i, W_i]: the box-bin
  // logits, then the class logits; an end-to-end head adds its one-to-one branch's levels after
  // those (2 x levels outputs). The same in training and evaluation.
  std::vector<torch::Tensor> forward(const std::vector<torch::Tensor>& features);

  DetectOptions options;
  torch::nn::ModuleList cv2{nullptr}, cv3{nullptr};
  torch::nn::ModuleList one2one_cv2{nullptr}, one2one_cv3{nullptr};  ///< end2end only
  DFL dfl{nullptr};  ///< reg_max > 1 only (Ultralytics' nn.Identity otherwise)

 private:
  void initialise_biases(torch::nn::ModuleList& boxes, torch::nn::ModuleList& scores);
};
TORCH_MODULE(Detect);

// Ultralytics' classification head (nn/modules/head.py Classify): a 1x1 Conv to 1280 channels
// (EfficientNet-B0's width), global average pooling and a Linear layer (Ultralytics' dropout
// between them is 0 unless its `dropout` is set, which is not offered here). It returns the
// logits in training and evaluation; Ultralytics' evaluation forward adds their softmax, which
// the classify task takes where it needs it.
class ClassifyImpl : public torch::nn::Cloneable<ClassifyImpl> {
 public:
  ClassifyImpl(int64_t in_channels, int64_t classes);

  void reset() override;
  torch::Tensor forward(const torch::Tensor& features);

  static constexpr int64_t kWidth = 1280;
  int64_t in_channels, classes;
  Conv conv{nullptr};
  torch::nn::Linear linear{nullptr};
};
TORCH_MODULE(Classify);

}  // namespace trainer::yolo
