// Ultralytics' YOLOv8 n/s/m/l/x: detection (models/yolov8.h, onnx/yolov8_graph.h).
#include "families/model_family.h"
#include "models/yolov8.h"
#include "onnx/yolov8_graph.h"

namespace trainer {

ModelFamily yolov8_family() {
  ModelFamily family;
  family.names = {names_starting_with("yolov8"), "yolov8n/s/m/l/x", TaskKind::detect, "yolov8n"};
  family.build = [](const ModelRequest& request) -> std::shared_ptr<torch::nn::Module> {
    return make_yolov8(request.name, request.in_channels, request.classes).ptr();
  };
  family.onnx_graph = onnx_export::graph_writer<YOLOv8Impl>(&onnx_export::yolov8_onnx, "YOLOv8");
  // Ultralytics' DetectionModel (io refuses its other tasks' models) or another pickled model
  // whose scale io reads from its yaml or its first layer's width.
  family.ultralytics_model = [](const UltralyticsModel& file) {
    return file.scale.empty() ? std::string() : "yolov8" + file.scale;
  };
  return family;
}

}  // namespace trainer
