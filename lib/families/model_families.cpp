#include "families/model_family.h"

#include <algorithm>
#include <filesystem>

#include "models/yolo.h"
#include "util/error.h"

namespace trainer {

// The registration: one line per family, whose record families/<family>_family.cpp (or a file of
// related families, as yolo_families.cpp) defines as `ModelFamily <family>_family()`. The order is
// that of messages ("resnet18/34/50 (task=classify), crnn (task=ocr), yolov8n/s/m/l/x
// (task=detect) …"); a task's default model is its first family's.
#define TRAINER_MODEL_FAMILIES(FAMILY) \
  FAMILY(resnet)                       \
  FAMILY(crnn)                         \
  FAMILY(yolov8)                       \
  FAMILY(yolo11)                       \
  FAMILY(yolo26)                       \
  FAMILY(yolov5u)                      \
  FAMILY(yolo_definition)              \
  FAMILY(yolov8_cls)                   \
  FAMILY(yolo11_cls)                   \
  FAMILY(yolo26_cls)                   \
  FAMILY(yolo_cls_definition)

#define TRAINER_DECLARE_FAMILY(family) ModelFamily family##_family();
TRAINER_MODEL_FAMILIES(TRAINER_DECLARE_FAMILY)
#undef TRAINER_DECLARE_FAMILY

const std::vector<ModelFamily>& model_families() {
#define TRAINER_FAMILY_RECORD(family) family##_family(),
  static const std::vector<ModelFamily> families = {TRAINER_MODEL_FAMILIES(TRAINER_FAMILY_RECORD)};
#undef TRAINER_FAMILY_RECORD
  return families;
}

const ModelCatalog& model_catalog() {
  static const ModelCatalog catalog = [] {
    ModelCatalog names;
    for (const ModelFamily& family : model_families()) names.push_back(family.names);
    return names;
  }();
  return catalog;
}

const ModelFamily& family_of(const std::string& model) {
  for (const ModelFamily& family : model_families()) {
    if (family.names.answers_to(model)) return family;
  }
  throw UserError("unknown model '" + model + "'; models are " +
                  model_families_text(model_catalog()));
}

std::string ultralytics_architecture(const UltralyticsModel& file) {
  for (const ModelFamily& family : model_families()) {
    const std::string model = family.ultralytics_model ? family.ultralytics_model(file) : "";
    if (!model.empty()) return model;
  }
  return "";
}

UltralyticsBuild ultralytics_build(const UltralyticsModel& file) {
  UltralyticsBuild build;
  build.task = file.classifies ? TaskKind::classify : TaskKind::detect;
  const std::filesystem::path yaml_file = std::filesystem::path(file.yaml_file).filename();
  const std::string extension = yaml_file.extension().string();
  const std::vector<std::string>& built_in = yolo_model_names();
  const bool own_yaml = (extension == ".yaml" || extension == ".yml") &&
                        std::find(built_in.begin(), built_in.end(), yaml_file.stem().string()) == built_in.end();
  const std::string generation = ultralytics_architecture(file);
  if (!generation.empty() && (!own_yaml || file.definition.empty())) {
    build.model = generation;
  } else if (!file.definition.empty()) {
    build.model = own_yaml ? yaml_file.string() : "model.yaml";
    build.definition = file.definition;
  }
  return build;
}

namespace {

// The family of model-definition files that trains `task`.
const ModelFamily& definitions_family(TaskKind task) {
  for (const ModelFamily& family : model_families()) {
    if (family.builds_definitions && family.names.task == task) return family;
  }
  throw UserError(std::string("task=") + to_string(task) + " builds no model from a model-definition file; models are " +
                  model_families_text(model_catalog()));
}

// The request's family (by its name, or the definition files' where it carries a definition),
// which must train `task` and build its models with `builder`.
template <class Builder>
const Builder& builder_for(const ModelRequest& request, TaskKind task, Builder ModelFamily::*builder) {
  const std::string& model = request.name;
  const ModelFamily& family = request.definition.empty() ? family_of(model) : definitions_family(task);
  if (family.names.task != task || !(family.*builder)) {
    throw UserError("model '" + model + "' trains task=" + to_string(family.names.task) +
                    ", not task=" + to_string(task) + "; models are " +
                    model_families_text(model_catalog()));
  }
  return family.*builder;
}

}  // namespace

LogitsModel build_logits_model(const ModelRequest& request, TaskKind task) {
  return builder_for(request, task, &ModelFamily::logits_model)(request);
}

DetectorModel build_detector(const ModelRequest& request) {
  return builder_for(request, TaskKind::detect, &ModelFamily::detector)(request);
}

}  // namespace trainer
