// What a trained model is for, beside its weights: what a deployed copy (an ONNX export) or a
// checkpoint on a machine without the training data needs to pre- and post-process as training
// did. It lives beside the checkpoint, which carries it (io/checkpoint.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "data/image_dataset.h"

namespace trainer {

struct ModelCard {
  std::string task;                 ///< classify | ocr | detect
  std::string model_name;           ///< e.g. resnet18, crnn, yolov8n
  std::vector<std::string> labels;  ///< class names; OCR: the characters (class i + 1 is labels[i], 0 the blank)
  int64_t channels = 3;
  int64_t height = 0, width = 0;  ///< the input size validation uses
  std::string recipe;             ///< the recipe YAML the model was trained with
  Normalization normalization;    ///< per channel, of pixels scaled to [0, 1]: (x - mean) / std
  // The model-definition file's text where model_name names one (Ultralytics' model yaml), so the
  // checkpoint rebuilds its architecture without the file, as Ultralytics' .pt carries its yaml;
  // "" for a built-in model.
  std::string model_definition;
};

// Pixels scaled to [0, 1] and nothing else: YOLOv8's input, Ultralytics' and ours.
inline Normalization unit_scaled_pixels(size_t channels = 3) {
  return {std::vector<double>(channels, 0.0), std::vector<double>(channels, 1.0)};
}

}  // namespace trainer
