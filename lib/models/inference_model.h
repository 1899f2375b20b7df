// What runs a trained model for validation and prediction when it is not the task's own LibTorch
// module: a deployed copy, such as an exported ONNX file run by OpenCV's DNN module
// (onnx/opencv_model.h). Tasks call it without knowing what runs behind it.
#pragma once
#include <ATen/core/Tensor.h>

#include <string>

namespace trainer {

class InferenceModel {
 public:
  virtual ~InferenceModel() = default;
  // float [B, C, H, W] -> the exported layout: logits [B, classes] (classification), per-frame
  // logits [B, T, classes] (OCR), or [B, 4 + classes, anchors] with (cx, cy, w, h) boxes in input
  // pixels and sigmoid class scores (detection). On the CPU.
  virtual torch::Tensor run(const torch::Tensor& input) = 0;
  // Shown where results are reported, e.g. "ONNX in OpenCV DNN".
  virtual std::string description() const = 0;
};

}  // namespace trainer
