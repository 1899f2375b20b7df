// YOLO models as Ultralytics builds them from cfg/models/v8/yolov8.yaml (23 layers),
// cfg/models/11/yolo11.yaml (24) and their classification variants yolov8-cls.yaml and
// yolo11-cls.yaml (a Classify head on the backbone), at the scales n/s/m/l/x: the same layers,
// scaling and initialisation, and the same state-dict keys and shapes (`model.0.conv.weight`,
// `model.2.m.0.cv1.bn.running_mean`, `model.10.m.0.attn.qkv.conv.weight`, `model.22.cv3.1.2.bias`,
// ...), so Ultralytics' weights map onto it key for key.
#pragma once
#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "models/yolo_head.h"

namespace trainer {

enum class YoloGeneration { v8, v11 };
enum class YoloHead { detect, classify };

struct YoloOptions {
  TORCH_ARG(YoloGeneration, generation) = YoloGeneration::v8;
  TORCH_ARG(YoloHead, head) = YoloHead::detect;
  TORCH_ARG(double, depth) = 0.33;          ///< repeats multiplier of the C2f / C3k2 blocks
  TORCH_ARG(double, width) = 0.25;          ///< channel multiplier
  TORCH_ARG(int64_t, max_channels) = 1024;  ///< channel cap before the width multiplier
  TORCH_ARG(int64_t, in_channels) = 3;      ///< input image channels, >= 1
  TORCH_ARG(int64_t, classes) = 80;         ///< >= 1
  // YOLO11 at m, l and x: every C3k2 refines with C3k blocks (parse_model sets c3k for those
  // scales).
  TORCH_ARG(bool, c3k_everywhere) = false;
};

class YoloImpl : public torch::nn::Cloneable<YoloImpl> {
 public:
  explicit YoloImpl(const YoloOptions& options = {});

  void reset() override;
  // images [B, in_channels, H, W] with H and W multiples of 32 -> the head's raw outputs, in
  // training and evaluation alike: for detection one per level, [B, 4 * reg_max + classes, H / s,
  // W / s] for s = 8, 16, 32 (decode_predictions in tasks/box_ops.h turns them into boxes and
  // scores); for classification one, the logits [B, classes].
  std::vector<torch::Tensor> forward(const torch::Tensor& images);

  // The Detect head, the last layer of a detection model.
  yolo::DetectImpl& head() const;
  const std::vector<double>& strides() const { return head().options.strides(); }
  int64_t reg_max() const { return head().options.reg_max(); }

  YoloOptions options;
  torch::nn::ModuleList model{nullptr};  ///< the layers, parameter-free ones included

  // c3k2 layers are C2f modules (Ultralytics' C3k2 subclasses C2f) with YOLO11's inner blocks.
  enum class LayerKind { conv, c2f, c3k2, sppf, c2psa, upsample, concat, detect, classify };

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
TORCH_MODULE(Yolo);

// The model names make_yolo accepts (yolov8n … yolov8x, yolo11n … yolo11x and their -cls
// variants), for help texts and did-you-mean suggestions.
const std::vector<std::string>& yolo_model_names();

// `name` is one of yolo_model_names(); anything else throws UserError.
Yolo make_yolo(const std::string& name, int64_t in_channels, int64_t classes);

}  // namespace trainer
