// Model families by registration: each family (ResNet, CRNN, YOLOv8 …) is one record that says
// which model names it answers to, the task it trains, how its models are built and how they are
// written as ONNX graphs. The records serve the tasks' model factory (and through the models it
// builds, `trainer export format=onnx`), the recipe loader (through config's ModelCatalog: a
// model's task, a task's default model, the families in messages) and the reading of Ultralytics'
// checkpoints. A family defines its record in families/<family>_family.cpp and is registered by
// one line of model_families.cpp.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <torch/nn/module.h>

#include "config/model_catalog.h"
#include "config/setting_types.h"
#include "io/ultralytics_checkpoint.h"
#include "onnx/onnx_export.h"

namespace trainer {

struct OcrSettings;

// What a task asks of a family's builder.
struct ModelRequest {
  std::string name;  ///< the recipe's model=: resnet18, crnn, yolov8n …
  int64_t in_channels = 3;
  int64_t classes = 1;
  NormKind norm = NormKind::batch;
  const OcrSettings* ocr = nullptr;  ///< the OCR recipe's sizes, for text recognisers
  double dropout = 0.0;              ///< training-only dropout, where the family has one
  double drop_path = 0.0;            ///< training-only stochastic depth, where the family has one
  // The text of the model-definition file `name` names (settings.run.model_definition): the model
  // is built from it, by the family of such files for the task, whether or not the file exists.
  std::string definition;
};

// A built model as the tasks drive it and export writes it, whatever its family: the module (its
// weights, mode and device), its input channels and its ONNX graph. The family binds the graph
// writer and the forward pass to its own module type when it builds the model, so no caller needs
// that type (no RTTI).
struct BuiltModel {
  std::shared_ptr<torch::nn::Module> module;
  int64_t in_channels = 3;
  onnx_export::ModelGraph onnx_graph;
};

// Images -> logits: per class [N, classes] (classify) or per step and character [N, T, classes]
// (ocr).
struct LogitsModel : BuiltModel {
  std::function<torch::Tensor(const torch::Tensor&)> forward;
  // A decoder trained teacher-forced (OCR's Attn): images and the symbol each step reads [N,
  // steps] -> logits [N, steps, classes]; unset for every other model.
  std::function<torch::Tensor(const torch::Tensor&, const torch::Tensor&)> teacher_forced;
};

// Images -> the detection head's raw outputs, one per level [B, 4 * reg_max + classes, H / s, W /
// s] for the strides s, in training and evaluation mode alike.
struct DetectorModel : BuiltModel {
  std::function<std::vector<torch::Tensor>(const torch::Tensor&)> forward;
  std::vector<double> strides;
  int64_t reg_max = 16;
  // YOLO26's end-to-end head: the outputs hold the one-to-many levels, then the one-to-one ones.
  bool end2end = false;
};

struct ModelFamily {
  ModelNames names;  ///< the names it answers to, its task and default member
  // The builder of the kind its task drives (logits for classify and ocr, detector for detect):
  // a fresh model, initialised as its reference initialises it; UserError for a name the family
  // answers to but has no model of.
  std::function<LogitsModel(const ModelRequest&)> logits_model;
  std::function<DetectorModel(const ModelRequest&)> detector;
  // The model an Ultralytics checkpoint (its pickled module's class, yaml, scale and state dict)
  // is of in this family ("yolov8n" …), "" for one it is not; unset for families Ultralytics
  // does not write.
  std::function<std::string(const UltralyticsModel&)> ultralytics_model;
  // Builds models from a model-definition file's text (ModelRequest::definition): its task's
  // family for requests that carry one.
  bool builds_definitions = false;
};

// A family's graph writer for `Impl` modules.
template <class Impl>
using GraphWriter = onnx_export::FamilyGraph (*)(onnx_export::GraphBuilder&, const Impl&,
                                                 const onnx_export::GraphRequest&);

// `model` (a module holder: ResNet, Crnn, Yolo …) written by its family's `write`: what
// BuiltModel::onnx_graph holds.
template <class Holder, class Impl>
onnx_export::ModelGraph bound_graph(Holder model, GraphWriter<Impl> write) {
  return [write, model](onnx_export::GraphBuilder& graph, const onnx_export::GraphRequest& request) {
    return write(graph, *model, request);
  };
}

// `model` as a built model of kind `Built`, its family's graph writer and its forward pass bound
// to it.
template <class Built, class Holder, class Impl>
Built bind_model(Holder model, int64_t in_channels, GraphWriter<Impl> write) {
  Built built;
  built.module = model.ptr();
  built.in_channels = in_channels;
  built.onnx_graph = bound_graph(model, write);
  built.forward = [model](const torch::Tensor& images) mutable { return model->forward(images); };
  return built;
}

// The registered families, in the order messages list them.
const std::vector<ModelFamily>& model_families();

// What config knows of them.
const ModelCatalog& model_catalog();

// The family `model` belongs to; UserError "unknown model …; models are …" when none.
const ModelFamily& family_of(const std::string& model);

// The model an Ultralytics checkpoint is of, by the first family that recognises it; "" when none
// does.
std::string ultralytics_architecture(const UltralyticsModel& file);

// What an Ultralytics checkpoint is built as, as its `yaml` dict decides: a model from a user's
// model yaml (a yaml_file naming no built-in model, or a layout no family recognises) is built
// from that dict, `model` being the yaml's file name ("model.yaml" when it has none) and
// `definition` the dict's text; any other is the generation its family recognises (yolo11n …,
// `definition` ""). `model` is "" when neither applies.
struct UltralyticsBuild {
  std::string model;
  std::string definition;
  TaskKind task = TaskKind::detect;
};
UltralyticsBuild ultralytics_build(const UltralyticsModel& file);

// `request.name` built by its family, as the model `task` drives; UserError when the name is
// unknown or its family trains another task.
LogitsModel build_logits_model(const ModelRequest& request, TaskKind task);
DetectorModel build_detector(const ModelRequest& request);

}  // namespace trainer
