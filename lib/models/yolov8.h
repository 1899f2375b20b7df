// YOLOv8 detection models n/s/m/l/x as Ultralytics builds them from cfg/models/v8/yolov8.yaml:
// the same 23 layers, scaling and initialisation, and the same state-dict keys and shapes
// (`model.0.conv.weight`, `model.2.m.0.cv1.bn.running_mean`, `model.22.cv3.1.2.bias`, ...), so
// Ultralytics' weights map onto it key for key.
#pragma once
#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "models/yolo_head.h"

namespace trainer {

struct YOLOv8Options {
  TORCH_ARG(double, depth) = 0.33;          ///< repeats multiplier of the C2f blocks
  TORCH_ARG(double, width) = 0.25;          ///< channel multiplier
  TORCH_ARG(int64_t, max_channels) = 1024;  ///< channel cap before the width multiplier
  TORCH_ARG(int64_t, in_channels) = 3;      ///< input image channels, >= 1
  TORCH_ARG(int64_t, classes) = 80;         ///< >= 1
};

class YOLOv8Impl : public torch::nn::Cloneable<YOLOv8Impl> {
 public:
  explicit YOLOv8Impl(const YOLOv8Options& options = {});

  void reset() override;
  // images [B, in_channels, H, W] with H and W multiples of 32 -> the head's raw outputs, one per
  // level: [B, 4 * reg_max + classes, H / s, W / s] for s = 8, 16, 32, in training and
  // evaluation alike. decode_predictions (tasks/box_ops.h) turns them into boxes and scores.
  std::vector<torch::Tensor> forward(const torch::Tensor& images);

  // The Detect head, model[22].
  yolo::DetectImpl& head() const;
  const std::vector<double>& strides() const { return head().options.strides(); }
  int64_t reg_max() const { return head().options.reg_max(); }

  YOLOv8Options options;
  torch::nn::ModuleList model{nullptr};  ///< layers 0..22, parameter-free ones included

  enum class LayerKind { conv, c2f, sppf, upsample, concat, detect };

  // What forward needs to call model[i]. Kept as plain data rather than module handles because
  // clone() replaces the modules inside `model`.
  struct Layer {
    LayerKind kind;
    std::vector<int64_t> from;  ///< -1: the previous layer's output; otherwise a layer index
  };
  // model[i]'s kind and inputs, for code that writes the same graph elsewhere (ONNX export).
  const std::vector<Layer>& layers() const { return layers_; }

 private:
  std::vector<Layer> layers_;
  std::vector<bool> keep_;  ///< outputs that a later layer reads by index
};
TORCH_MODULE(YOLOv8);

// The model names make_yolov8 accepts, for help texts and did-you-mean suggestions.
const std::vector<std::string>& yolov8_names();

// `name` is yolov8n, yolov8s, yolov8m, yolov8l or yolov8x; anything else throws UserError.
YOLOv8 make_yolov8(const std::string& name, int64_t in_channels, int64_t classes);

}  // namespace trainer
