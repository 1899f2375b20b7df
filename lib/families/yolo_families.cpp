// Ultralytics' YOLO generations: YOLOv8 and YOLO11, n/s/m/l/x, for detection and (the -cls
// models) classification (models/yolo.h, onnx/yolov8_graph.h).
#include <algorithm>

#include "families/model_family.h"
#include "models/yolo.h"
#include "onnx/yolov8_graph.h"

namespace trainer {
namespace {

DetectorModel build_yolo_detector(const ModelRequest& request) {
  Yolo model = make_yolo(request.name, request.in_channels, request.classes);
  DetectorModel built =
      bind_model<DetectorModel>(model, request.in_channels, &onnx_export::yolov8_onnx);
  built.strides = model->strides();
  built.reg_max = model->reg_max();
  return built;
}

LogitsModel build_yolo_classifier(const ModelRequest& request) {
  Yolo model = make_yolo(request.name, request.in_channels, request.classes);
  LogitsModel built;
  built.module = model.ptr();
  built.in_channels = request.in_channels;
  // The YOLO graph writer, which refuses the Classify head with a clear message.
  built.onnx_graph = bound_graph(model, &onnx_export::yolov8_onnx);
  built.forward = [model](const torch::Tensor& images) mutable {
    return model->forward(images).front();
  };
  return built;
}

// The names of a generation (yolo11n …) for one task: the -cls ones classify, the others detect.
std::function<bool(const std::string&)> yolo_names(std::string prefix, bool classification) {
  return [prefix = std::move(prefix), classification](const std::string& name) {
    const bool cls = name.size() > 4 && name.compare(name.size() - 4, 4, "-cls") == 0;
    return name.rfind(prefix, 0) == 0 && cls == classification;
  };
}

bool has_weight(const UltralyticsModel& file, const std::string& key) {
  return std::any_of(file.weights.begin(), file.weights.end(),
                     [&](const auto& entry) { return entry.first == key; });
}

// A DetectionModel (io refuses its other tasks' models) is of a generation by its layer layout:
// where its Detect head sits, and YOLO11's C2PSA attention at layer 10. The scale comes from io
// (the file's yaml, else its first layer's width).
std::function<std::string(const UltralyticsModel&)> recognised_by(std::string prefix,
                                                                  std::string head_key,
                                                                  std::string marker_key) {
  return [prefix = std::move(prefix), head_key = std::move(head_key),
          marker_key = std::move(marker_key)](const UltralyticsModel& file) {
    const bool layout =
        has_weight(file, head_key) && (marker_key.empty() || has_weight(file, marker_key));
    return file.scale.empty() || !layout ? std::string() : prefix + file.scale;
  };
}

// A generation's family for one task: its names (yolo11n … or yolo11n-cls …), default member
// and builder.
ModelFamily yolo_family(const std::string& generation, TaskKind task) {
  const bool classification = task == TaskKind::classify;
  const std::string suffix = classification ? "-cls" : "";
  ModelFamily family;
  family.names = {yolo_names(generation, classification), generation + "n/s/m/l/x" + suffix, task,
                  generation + "n" + suffix, true};
  if (classification) {
    family.logits_model = build_yolo_classifier;
  } else {
    family.detector = build_yolo_detector;
  }
  return family;
}

}  // namespace

ModelFamily yolov8_family() {
  ModelFamily family = yolo_family("yolov8", TaskKind::detect);
  family.ultralytics_model = recognised_by("yolov8", "model.22.dfl.conv.weight", "");
  return family;
}

ModelFamily yolo11_family() {
  ModelFamily family = yolo_family("yolo11", TaskKind::detect);
  family.ultralytics_model =
      recognised_by("yolo11", "model.23.dfl.conv.weight", "model.10.m.0.attn.qkv.conv.weight");
  return family;
}

// Ultralytics' ClassificationModel files are not read yet (io refuses them): no recogniser.
ModelFamily yolov8_cls_family() { return yolo_family("yolov8", TaskKind::classify); }

ModelFamily yolo11_cls_family() { return yolo_family("yolo11", TaskKind::classify); }

}  // namespace trainer
