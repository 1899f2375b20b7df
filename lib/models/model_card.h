// What a trained model is for, beside its weights: what a deployed copy (an ONNX export) needs to
// pre- and post-process as training did.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

struct ModelCard {
  std::string task;                 ///< classify | ocr | detect
  std::string model_name;           ///< e.g. resnet18, crnn, yolov8n
  std::vector<std::string> labels;  ///< class names; OCR: the characters (class i + 1 is labels[i], 0 the blank)
  int64_t channels = 3;
  int64_t height = 0, width = 0;  ///< the input size validation uses
  std::string recipe;             ///< the recipe YAML the model was trained with
};

}  // namespace trainer
