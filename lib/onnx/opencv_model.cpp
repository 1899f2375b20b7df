#include "onnx/opencv_model.h"

#include <torch/torch.h>

#include "onnx/onnx_export.h"
#include "onnx/onnx_metadata.h"
#include "util/error.h"

namespace trainer::onnx_export {
namespace {

cv::dnn::Net read_net(const std::filesystem::path& path, const std::string& bytes, bool fusion = true) {
  try {
    cv::dnn::Net net =
        bytes.empty() ? cv::dnn::readNetFromONNX(path.string()) : cv::dnn::readNetFromONNX(bytes.data(), bytes.size());
    net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    net.enableFusion(fusion);
    return net;
  } catch (const cv::Exception& error) {
    throw UserError("OpenCV DNN cannot read " + path.string() + ": " + error.err);
  }
}

}  // namespace

OpenCvModel::OpenCvModel(const std::filesystem::path& path) : path_(path) {
  const OnnxFileInfo info = read_onnx_file_info(path);
  const auto task = info.metadata.find("task");
  if (task == info.metadata.end() || task->second != "ocr") {
    const auto predictions = info.metadata.find(kPredictionsKey);
    corner_boxes_ = predictions != info.metadata.end();
    const auto output = info.metadata.find(kOutputKey);
    probabilities_ = output != info.metadata.end() && output->second == "probabilities";
    const auto fusion = info.metadata.find(kOpenCvFusionKey);
    nets_.emplace(0, read_net(path, corner_boxes_ ? graph_up_to(path, predictions->second) : "",
                              fusion == info.metadata.end() || fusion->second != "false"));
    return;
  }
  for (const char* key : {"imgsz", "channels"}) {
    if (info.metadata.count(key) == 0)
      throw UserError(path.string() + ": an OCR graph without " + key + " in its metadata");
  }
  rows_per_forward_ = std::max<int64_t>(info.batch, 1);
  channels_ = std::stoll(info.metadata.at("channels"));
  height_ = parse_imgsz(info.metadata.at("imgsz")).front();
}

cv::dnn::Net& OpenCvModel::net_for(int64_t width) {
  const int64_t key = rows_per_forward_ == 0 ? 0 : width;
  auto found = nets_.find(key);
  if (found == nets_.end()) {
    // The recognizer is read with every input dimension sized, once per width it meets.
    found = nets_.emplace(key, read_net(path_, with_input_shape(path_, {rows_per_forward_, channels_, height_, width})))
                .first;
  }
  return found->second;
}

torch::Tensor OpenCvModel::run(const torch::Tensor& input) {
  const int64_t rows = input.size(0), step = rows_per_forward_;
  if (step == 0 || rows == step) return forward(input);
  std::vector<torch::Tensor> outputs;
  for (int64_t first = 0; first < rows; first += step) {
    const int64_t count = std::min(step, rows - first);
    torch::Tensor group = input.narrow(0, first, count);
    if (count < step) {
      std::vector<int64_t> padding(input.sizes().begin(), input.sizes().end());
      padding[0] = step - count;
      group = torch::cat({group, torch::zeros(padding, input.options())});
    }
    outputs.push_back(forward(group).narrow(0, 0, count));
  }
  return torch::cat(outputs);
}

torch::Tensor OpenCvModel::forward(const torch::Tensor& input) {
  const torch::Tensor contiguous = input.to(torch::kCPU, torch::kFloat).contiguous();
  const std::vector<int> sizes(contiguous.sizes().begin(), contiguous.sizes().end());
  cv::dnn::Net& net = net_for(contiguous.size(3));
  net.setInput(cv::Mat(sizes, CV_32F, contiguous.data_ptr<float>()));
  const cv::Mat out = net.forward();
  const std::vector<int64_t> shape(out.size.p, out.size.p + out.dims);
  return in_inference_layout(torch::from_blob(const_cast<float*>(out.ptr<float>()), shape, torch::kFloat).clone());
}

torch::Tensor OpenCvModel::in_inference_layout(const torch::Tensor& output) const {
  if (probabilities_) return output.log();
  if (!corner_boxes_) return output;
  const torch::Tensor corners = output.narrow(1, 0, 4);
  const torch::Tensor centres = (corners.narrow(1, 0, 2) + corners.narrow(1, 2, 2)) / 2;
  const torch::Tensor sides = corners.narrow(1, 2, 2) - corners.narrow(1, 0, 2);
  return torch::cat({centres, sides, output.narrow(1, 4, output.size(1) - 4)}, 1);
}

}  // namespace trainer::onnx_export
