// An exported ONNX file run by OpenCV's DNN module (OpenCV 4.6's importer and CPU backend):
// deployment without LibTorch, in the binary users already have.
#pragma once
#include <opencv2/dnn.hpp>

#include <filesystem>
#include <map>
#include <string>

#include "models/inference_model.h"

namespace trainer::onnx_export {

// OpenCV 4.6's importer builds a recognizer's graph (metadata task=ocr) only with every input
// dimension sized, and for those sizes: its LSTM keeps the batch, its ReduceMean the width. So a
// recognizer is read once per width it meets (named dimensions sized: the batch 1) and fed the
// declared batch of rows at a time, the last group padded; other graphs run whole batches.
// Outputs come in InferenceModel's layouts: an end-to-end detector runs up to its predictions
// before the top-k tail (OpenCV 4.6 has no TopK), boxes turned to (cx, cy, w, h); class
// probabilities (YOLO -cls graphs) become log-probabilities, whose softmax gives them back.
class OpenCvModel : public InferenceModel {
 public:
  explicit OpenCvModel(const std::filesystem::path& path);
  torch::Tensor run(const torch::Tensor& input) override;
  std::string description() const override { return "ONNX in OpenCV DNN"; }

 private:
  torch::Tensor forward(const torch::Tensor& input);
  torch::Tensor in_inference_layout(const torch::Tensor& output) const;
  cv::dnn::Net& net_for(int64_t width);

  std::filesystem::path path_;
  std::map<int64_t, cv::dnn::Net> nets_;  ///< by input width for a recognizer, else one under 0
  int64_t rows_per_forward_ = 0;          ///< recognizer: rows per forward; 0: the whole batch
  int64_t channels_ = 0, height_ = 0;     ///< recognizer's input channels and height
  bool corner_boxes_ = false;             ///< the output's boxes are (x1, y1, x2, y2)
  bool probabilities_ = false;            ///< the output is class probabilities
};

}  // namespace trainer::onnx_export
