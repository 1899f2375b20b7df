// YOLO models built as Ultralytics' parse_model (nn/tasks.py) builds them from a model definition
// (models/yolo_definition.h): the built-in yolov5u, yolov8, yolo11, yolo26 and -cls definitions at
// the scales n/s/m/l/x, or a user's own file of known modules. The layers, scaling and
// initialisation are Ultralytics', and so are the state-dict keys and shapes
// (`model.0.conv.weight`, `model.10.m.0.attn.qkv.conv.weight`, `model.23.one2one_cv3.2.2.bias`
// ...), so Ultralytics' weights map onto it key for key.
#pragma once
#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/yolo_definition.h"
#include "models/yolo_head.h"

namespace trainer {

struct YoloOptions {
  explicit YoloOptions(std::shared_ptr<const YoloDefinition> definition)
      : definition_(std::move(definition)) {}
  TORCH_ARG(std::shared_ptr<const YoloDefinition>, definition);
  TORCH_ARG(std::string, scale);        ///< a letter of the definition's scales; "" for its own
  TORCH_ARG(int64_t, in_channels) = 3;  ///< input image channels, >= 1
  TORCH_ARG(int64_t, classes) = 80;     ///< >= 1, in place of the definition's nc
};

class YoloImpl : public torch::nn::Cloneable<YoloImpl> {
 public:
  explicit YoloImpl(const YoloOptions& options);

  void reset() override;
  // images [B, in_channels, H, W] with H and W multiples of 32 -> the head's raw outputs, in
  // training and evaluation alike: for detection one per level, [B, 4 * reg_max + classes, H / s,
  // W / s] for s = 8, 16, 32 (decode_predictions in tasks/box_ops.h turns them into boxes and
  // scores); for classification one, the logits [B, classes].
  std::vector<torch::Tensor> forward(const torch::Tensor& images);

  // Whether the last layer is a Detect head (else Classify).
  bool detects() const { return layers_.back().kind == LayerKind::detect; }
  // The Detect head, the last layer of a detection model.
  yolo::DetectImpl& head() const;
  const std::vector<double>& strides() const { return head().options.strides(); }
  int64_t reg_max() const { return head().options.reg_max(); }

  YoloOptions options;
  torch::nn::ModuleList model{nullptr};  ///< the layers, parameter-free ones included

  // c3k2 layers are C2f modules (Ultralytics' C3k2 subclasses C2f) with YOLO11's inner blocks;
  // c3 layers are YOLOv5's C3.
  enum class LayerKind { conv, c2f, c3k2, c3, sppf, c2psa, upsample, concat, detect, classify };

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

// The model names make_yolo accepts (yolov5nu …, yolov8n … yolov8x, yolo11n …, yolo26n … and the
// -cls variants), for help texts and did-you-mean suggestions.
const std::vector<std::string>& yolo_model_names();

// `name` is one of yolo_model_names() (yolov5n is yolov5nu), or the path of a model-definition
// file (.yaml) whose modules are known; anything else throws UserError naming it. `definition`:
// that file's text where the caller holds it (the recipe loader read it, a checkpoint carries
// it); the file is read when it is empty.
Yolo make_yolo(const std::string& name, int64_t in_channels, int64_t classes,
               const std::string& definition = {});

// The model `definition` at `scale` ("" for the file's own `scale:`, else its first scale, as
// Ultralytics assumes).
Yolo make_yolo(std::shared_ptr<const YoloDefinition> definition, std::string scale,
               int64_t in_channels, int64_t classes);

}  // namespace trainer
