// Ultralytics' YOLO generations: YOLOv5u, YOLOv8, YOLO11 and YOLO26, n/s/m/l/x, for detection
// and (the -cls models) classification, and users' own model-definition files (models/yolo.h,
// onnx/yolo_graph.h).
#include <algorithm>
#include <filesystem>

#include "families/model_family.h"
#include "models/yolo.h"
#include "onnx/yolo_graph.h"
#include "util/error.h"

namespace trainer {
namespace {

DetectorModel build_yolo_detector(const ModelRequest& request) {
  Yolo model = make_yolo(request.name, request.in_channels, request.classes, request.definition);
  DetectorModel built =
      bind_model<DetectorModel>(model, request.in_channels, &onnx_export::yolo_onnx);
  built.strides = model->strides();
  built.reg_max = model->reg_max();
  built.end2end = model->head().options.end2end();
  return built;
}

LogitsModel build_yolo_classifier(const ModelRequest& request) {
  if (request.dropout > 0.0 || request.drop_path > 0.0) {
    throw UserError("dropout and drop_path are offered for the ResNets (and dropout for the CRNN), not for '" +
                    request.name + "'; leave them at 0");
  }
  Yolo model = make_yolo(request.name, request.in_channels, request.classes, request.definition);
  LogitsModel built;
  built.module = model.ptr();
  built.in_channels = request.in_channels;
  built.onnx_graph = bound_graph(model, &onnx_export::yolo_onnx);
  built.forward = [model](const torch::Tensor& images) mutable {
    return model->forward(images).front();
  };
  return built;
}

// The names of a generation (yolo11n …) for one task: the -cls ones classify, the others detect.
std::function<bool(const std::string&)> yolo_names(std::string prefix, bool classification) {
  return [prefix = std::move(prefix), classification](const std::string& name) {
    const bool cls = name.size() > 4 && name.compare(name.size() - 4, 4, "-cls") == 0;
    return !names_definition_file(name) && name.rfind(prefix, 0) == 0 && cls == classification;
  };
}

// A user's model-definition file, of the task its head names (Ultralytics' guess_model_task): a
// Classify head classifies; anything else, a file that does not parse included, is detection's
// to build or to report.
std::function<bool(const std::string&)> definition_files(bool classification) {
  return [classification](const std::string& name) {
    if (!names_definition_file(name) || !std::filesystem::is_regular_file(name)) return false;
    try {
      const YoloDefinition definition = read_yolo_definition(name);
      return (!definition.rows.empty() && definition.rows.back().module == "Classify") ==
             classification;
    } catch (const UserError&) {
      return !classification;
    }
  };
}

bool has_weight(const UltralyticsModel& file, const std::string& key) {
  return std::any_of(file.weights.begin(), file.weights.end(),
                     [&](const auto& entry) { return entry.first == key; });
}

// A ClassificationModel of a generation: its Classify head's place, YOLO11's C2PSA before it, and
// for the generations of one architecture (YOLO11-cls, YOLO26-cls) the model yaml the file names.
std::function<std::string(const UltralyticsModel&)> classifier_recognised_by(std::string generation,
                                                                             std::string head_key,
                                                                             std::string marker_key,
                                                                             std::string yaml_prefix) {
  return [=](const UltralyticsModel& file) {
    const bool layout = file.classifies && has_weight(file, head_key) &&
                        (marker_key.empty() || has_weight(file, marker_key)) &&
                        (yaml_prefix.empty() || file.yaml_file.rfind(yaml_prefix, 0) == 0);
    return file.scale.empty() || !layout ? std::string() : generation + file.scale + "-cls";
  };
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
        !file.classifies && has_weight(file, head_key) && (marker_key.empty() || has_weight(file, marker_key));
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

// YOLOv5u: Detect at 24 (with its DFL), after YOLOv5's C3 neck.
ModelFamily yolov5u_family() {
  ModelFamily family = yolo_family("yolov5", TaskKind::detect);
  family.names.shown = "yolov5nu/su/mu/lu/xu";
  family.names.default_member = "yolov5nu";
  family.ultralytics_model = recognised_by("yolov5", "model.24.dfl.conv.weight", "");
  return family;
}

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

// YOLO26: Detect at 23 with its one-to-one branch (and no DFL), after YOLO11's attention at 10.
ModelFamily yolo26_family() {
  ModelFamily family = yolo_family("yolo26", TaskKind::detect);
  family.ultralytics_model = recognised_by("yolo26", "model.23.one2one_cv2.0.2.weight",
                                           "model.10.m.0.attn.qkv.conv.weight");
  return family;
}

// YOLOv8-cls: Classify at 9, after C2f.
ModelFamily yolov8_cls_family() {
  ModelFamily family = yolo_family("yolov8", TaskKind::classify);
  family.ultralytics_model = classifier_recognised_by("yolov8", "model.9.linear.weight", "", "");
  return family;
}

// YOLO11-cls and YOLO26-cls: Classify at 10, after C2PSA; a file naming no yolo26 yaml is YOLO11's.
ModelFamily yolo11_cls_family() {
  ModelFamily family = yolo_family("yolo11", TaskKind::classify);
  const auto same_layout =
      classifier_recognised_by("yolo11", "model.10.linear.weight", "model.9.m.0.attn.qkv.conv.weight", "");
  family.ultralytics_model = [same_layout](const UltralyticsModel& file) {
    return file.yaml_file.rfind("yolo26", 0) == 0 ? std::string() : same_layout(file);
  };
  return family;
}

ModelFamily yolo26_cls_family() {
  ModelFamily family = yolo_family("yolo26", TaskKind::classify);
  family.ultralytics_model =
      classifier_recognised_by("yolo26", "model.10.linear.weight", "model.9.m.0.attn.qkv.conv.weight", "yolo26");
  return family;
}

// model=my-yolo.yaml: a file in Ultralytics' model-definition format, built from its rows.
ModelFamily yolo_definition_family() {
  ModelFamily family;
  family.names = {definition_files(false), "a model .yaml of Ultralytics' format", TaskKind::detect,
                  ""};
  family.detector = build_yolo_detector;
  family.builds_definitions = true;
  return family;
}

ModelFamily yolo_cls_definition_family() {
  ModelFamily family;
  family.names = {definition_files(true), "a -cls model .yaml", TaskKind::classify, ""};
  family.logits_model = build_yolo_classifier;
  family.builds_definitions = true;
  return family;
}

}  // namespace trainer
