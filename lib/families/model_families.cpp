#include "families/model_family.h"

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

namespace {

// `model`'s family, which must train `task` and build its models with `builder`.
template <class Builder>
const Builder& builder_for(const std::string& model, TaskKind task, Builder ModelFamily::*builder) {
  const ModelFamily& family = family_of(model);
  if (family.names.task != task || !(family.*builder)) {
    throw UserError("model '" + model + "' trains task=" + to_string(family.names.task) +
                    ", not task=" + to_string(task) + "; models are " +
                    model_families_text(model_catalog()));
  }
  return family.*builder;
}

}  // namespace

LogitsModel build_logits_model(const ModelRequest& request, TaskKind task) {
  return builder_for(request.name, task, &ModelFamily::logits_model)(request);
}

DetectorModel build_detector(const ModelRequest& request) {
  return builder_for(request.name, TaskKind::detect, &ModelFamily::detector)(request);
}

}  // namespace trainer
