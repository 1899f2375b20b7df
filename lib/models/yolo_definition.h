// Ultralytics' model-definition format (cfg/models/*/*.yaml): `nc`, `scales` of [depth, width,
// max_channels] per letter, optional `scale`, `reg_max`, `end2end`, and the `backbone` and `head`
// lists of [from, repeats, module, args] rows that parse_model (nn/tasks.py) turns into layers.
// This file reads that format, for the built-in definitions and for users' own model files; what
// each module's args mean is the builder's (models/yolo.cpp).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace trainer {

// One [from, repeats, module, args] row.
struct YoloRow {
  std::vector<int64_t>
      from;             ///< -1: the previous layer; else a layer index (negative from the end)
  int64_t repeats = 1;  ///< before depth scaling
  std::string module;   ///< as written: Conv, C3k2, nn.Upsample …
  std::vector<std::string> args;  ///< the scalars as written: "256", "True", "0.25", "nc", "None"
  std::string where;              ///< "file:line", for messages
};

struct YoloScale {
  double depth = 1.0, width = 1.0;
  int64_t max_channels = 1 << 30;  ///< parse_model's default: no cap
};

struct YoloDefinition {
  std::string source;  ///< the file (or built-in name) it was read from
  std::string text;    ///< the YAML itself, kept so a checkpoint can carry its architecture
  int64_t classes = 80;
  int64_t reg_max = 16;
  bool end2end = false;
  std::vector<std::pair<char, YoloScale>> scales;  ///< in file order; empty: the multiples alone
  YoloScale unscaled;         ///< depth_multiple and width_multiple when there are no scales
  std::string scale;          ///< the file's own `scale:`, "" when absent
  std::vector<YoloRow> rows;  ///< backbone, then head
};

// `text` read as a model definition; UserError naming `source` (and the line) for a malformed one.
YoloDefinition parse_yolo_definition(const std::string& text, const std::string& source);

// Whether `name` names a model-definition file (.yaml, .yml), and that file read.
bool names_definition_file(const std::string& name);
YoloDefinition read_yolo_definition(const std::string& path);

// The definitions written here, by Ultralytics' file stem: yolov5 (YOLOv5u), yolov8, yolo11,
// yolo26 and yolov8-cls, yolo11-cls, yolo26-cls.
const std::vector<std::string>& builtin_yolo_definitions();
std::shared_ptr<const YoloDefinition> builtin_yolo_definition(const std::string& stem);

// A model name as Ultralytics reads it: `yolo11n` is yolo11.yaml at scale n, `yolov5su` yolov5.yaml
// at s, `yolo26m-cls` yolo26-cls.yaml at m. `stem` is "" for a name of no such form.
struct YoloName {
  std::string stem;
  std::string scale;
};
YoloName parse_yolo_name(const std::string& name);

}  // namespace trainer
