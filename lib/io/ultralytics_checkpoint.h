// Ultralytics' own checkpoints: the released yolov8n.pt ... yolov8x.pt and the best.pt / last.pt
// of every Ultralytics run. They pickle the whole model (`ultralytics.nn.tasks.DetectionModel`,
// fp16) in a dict with "model", "ema", "train_args", "date", "version" ...; Ultralytics itself
// must run the file's code to open them. Here the restricted unpickler records the objects
// inertly and the weights, scale, classes and names are read from that record.
#pragma once
#include <ATen/core/ivalue.h>

#include <cstdint>
#include <string>
#include <vector>

#include "io/checkpoint.h"

namespace trainer {

struct UltralyticsModel {
  std::string entry;               ///< "ema" or "model", as attempt_load_one_weight picks
  std::string type;                ///< the model's class, e.g. ultralytics.nn.tasks.DetectionModel
  bool classifies = false;         ///< a ClassificationModel (Classify head), else a DetectionModel
  std::string yaml_file;           ///< the model yaml it was built from (`yolo26n-cls.yaml`), "" when absent
  // The model's `yaml` dict written back as a model-definition file's text (models/
  // yolo_definition.h), "" when the file has none with backbone and head lists. parse_model has
  // evaluated its layers' arguments in place (`nc` is the number, `None` null), which reads the same.
  std::string definition;
  NamedTensors weights;            ///< state-dict keys (`model.0.conv.weight` ...), floats as fp32
  std::string scale;               ///< n, s, m, l or x; "" when the file does not tell
  int64_t classes = 0;             ///< 0 when the file does not tell
  std::vector<std::string> names;  ///< class names by index; empty when the file has none
  std::string version;             ///< the Ultralytics version that wrote it, "" when absent
  std::string data;                ///< train_args' data (the data.yaml it was trained on), "" when absent
  int64_t imgsz = 0;               ///< train_args' imgsz when one number, else 0
};

// Whether `archive` (read with PythonObjects::inert) is a dict whose "ema" or "model" entry is a
// pickled module: Ultralytics' layout, and that of Python scripts that torch.save a whole model.
bool has_pickled_model(const c10::IValue& archive);

// The model of such a dict: "ema" when set, else "model" (Ultralytics' attempt_load_one_weight:
// `ckpt.get("ema") or ckpt["model"]`). The scale comes from the model's `yaml` dict ("scale", else
// its depth and width multiples), else from the first layer's channels; the class count from
// `yaml["nc"]`, else from the Detect head's last convolution (a ClassificationModel's Classify
// linear layer); the names from its `names`. UserError naming `path` for a model of another task
// (segmentation, pose, OBB ...).
UltralyticsModel read_ultralytics_model(const c10::IValue& archive, const std::string& path);

}  // namespace trainer
