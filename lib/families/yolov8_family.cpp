// Ultralytics' YOLOv8 n/s/m/l/x: detection (models/yolov8.h, onnx/yolov8_graph.h).
#include "families/model_family.h"
#include "models/yolov8.h"
#include "onnx/yolov8_graph.h"

namespace trainer {

ModelFamily yolov8_family() {
  ModelFamily family;
  family.names = {names_starting_with("yolov8"), "yolov8n/s/m/l/x", TaskKind::detect, "yolov8n"};
  family.detector = [](const ModelRequest& request) {
    YOLOv8 model = make_yolov8(request.name, request.in_channels, request.classes);
    DetectorModel built = bind_model<DetectorModel>(model, request.in_channels, &onnx_export::yolov8_onnx);
    built.strides = model->strides();
    built.reg_max = model->reg_max();
    return built;
  };
  // Ultralytics' DetectionModel (io refuses its other tasks' models) or another pickled model
  // whose scale io reads from its yaml or its first layer's width.
  family.ultralytics_model = [](const UltralyticsModel& file) {
    return file.scale.empty() ? std::string() : "yolov8" + file.scale;
  };
  return family;
}

}  // namespace trainer
