// Model families by registration: each family (ResNet, CRNN, YOLOv8 …) is one record that says
// which model names it answers to, the task it trains, how its models are built and how they are
// written as ONNX graphs. The records serve the tasks' model factory, the recipe loader (through
// config's ModelCatalog: a model's task, a task's default model, the families in messages) and
// `trainer export format=onnx`. A family defines its record in families/<family>_family.cpp and
// is registered by one line of model_families.cpp.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <torch/nn/module.h>

#include "config/model_catalog.h"
#include "config/setting_types.h"
#include "io/model_card.h"
#include "io/ultralytics_checkpoint.h"
#include "onnx/onnx_export.h"
#include "util/error.h"

namespace trainer {

struct OcrSettings;

// What a task asks of a family's builder.
struct ModelRequest {
  std::string name;  ///< the recipe's model=: resnet18, crnn, yolov8n …
  int64_t in_channels = 3;
  int64_t classes = 1;
  NormKind norm = NormKind::batch;
  const OcrSettings* ocr = nullptr;  ///< the OCR recipe's sizes, for text recognisers
};

// Builds the named model; UserError for a name the family answers to but has no model of.
using ModelBuilder = std::function<std::shared_ptr<torch::nn::Module>(const ModelRequest&)>;

struct ModelFamily {
  ModelNames names;    ///< the names it answers to, its task and default member
  ModelBuilder build;  ///< a fresh model, initialised as its reference initialises it
  onnx_export::GraphWriter onnx_graph;  ///< the model as an ONNX graph
  // The model an Ultralytics checkpoint (its pickled module's class, yaml, scale and state dict)
  // is of in this family ("yolov8n" …), "" for one it is not; unset for families Ultralytics
  // does not write.
  std::function<std::string(const UltralyticsModel&)> ultralytics_model;
};

// The registered families, in the order messages list them.
const std::vector<ModelFamily>& model_families();

// What config knows of them.
const ModelCatalog& model_catalog();

// The family `model` belongs to; UserError "unknown model …; models are …" when none.
const ModelFamily& family_of(const std::string& model);

// The model an Ultralytics checkpoint is of, by the first family that recognises it; "" when none
// does.
std::string ultralytics_architecture(const UltralyticsModel& file);

// `request.name` built by its family.
std::shared_ptr<torch::nn::Module> build_model(const ModelRequest& request);

// The same, as the module type a task drives (ResNetImpl, CrnnImpl, YOLOv8Impl …).
template <class Impl>
std::shared_ptr<Impl> build_model_as(const ModelRequest& request) {
  std::shared_ptr<Impl> model = std::dynamic_pointer_cast<Impl>(build_model(request));
  if (model == nullptr) {
    throw UserError("model '" + request.name + "' is not of the kind task=" +
                    to_string(family_of(request.name).names.task) + " trains here");
  }
  return model;
}

// `trainer export format=onnx`: `model` (of the family card.model_name names) as an ONNX graph.
onnx_export::OnnxFile export_family_onnx(const torch::nn::Module& model, const ModelCard& card,
                                         const onnx_export::OnnxOptions& options);

}  // namespace trainer
