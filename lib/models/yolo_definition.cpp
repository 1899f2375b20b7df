#include "models/yolo_definition.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

std::string where(const std::string& source, const YAML::Node& node) {
  return node.Mark().is_null() ? source : source + ":" + std::to_string(node.Mark().line + 1);
}

template <class T>
T scalar_as(const YAML::Node& node, const std::string& what, const std::string& at) {
  try {
    if (node.IsScalar()) return node.as<T>();
  } catch (const YAML::Exception&) {
  }
  throw UserError(at + ": " + what + " must be a " +
                  (std::is_same_v<T, bool> ? "boolean" : "number") + ", got '" +
                  (node.IsScalar() ? node.Scalar() : std::string("a list")) + "'");
}

std::vector<int64_t> read_from(const YAML::Node& node, const std::string& at) {
  if (node.IsScalar()) return {scalar_as<int64_t>(node, "from", at)};
  std::vector<int64_t> from;
  if (node.IsSequence()) {
    for (const YAML::Node& index : node) from.push_back(scalar_as<int64_t>(index, "from", at));
  }
  if (from.empty()) throw UserError(at + ": from must be a layer index or a list of them");
  return from;
}

YoloRow read_row(const YAML::Node& node, const std::string& at) {
  if (!node.IsSequence() || node.size() != 4 || !node[3].IsSequence()) {
    throw UserError(at + ": a layer is [from, repeats, module, [args]]");
  }
  YoloRow row;
  row.where = at;
  row.from = read_from(node[0], at);
  row.repeats = scalar_as<int64_t>(node[1], "repeats", at);
  if (row.repeats < 1) throw UserError(at + ": repeats must be >= 1");
  row.module = node[2].IsScalar() ? node[2].Scalar() : "";
  if (row.module.empty()) throw UserError(at + ": the module must be a name (Conv, C2f …)");
  for (const YAML::Node& arg : node[3]) {
    if (!arg.IsScalar() && !arg.IsNull()) {
      throw UserError(at + ": " + row.module + "'s arguments must be single values");
    }
    row.args.push_back(arg.IsNull() ? "None" : arg.Scalar());
  }
  return row;
}

YoloScale read_scale(const YAML::Node& node, const std::string& at) {
  if (!node.IsSequence() || node.size() != 3) {
    throw UserError(at + ": a scale is [depth, width, max_channels]");
  }
  return {scalar_as<double>(node[0], "depth", at), scalar_as<double>(node[1], "width", at),
          scalar_as<int64_t>(node[2], "max_channels", at)};
}

void read_layers(const YAML::Node& root, const char* section, YoloDefinition& definition) {
  const YAML::Node list = root[section];
  if (!list || !list.IsSequence()) {
    throw UserError(definition.source + ": a model definition needs a '" + section +
                    "' list of [from, repeats, module, args]");
  }
  for (const YAML::Node& row : list) {
    definition.rows.push_back(read_row(row, where(definition.source, row)));
  }
}

void read_parameters(const YAML::Node& root, YoloDefinition& definition) {
  const std::string& source = definition.source;
  if (root["nc"])
    definition.classes = scalar_as<int64_t>(root["nc"], "nc", where(source, root["nc"]));
  if (root["reg_max"]) {
    definition.reg_max =
        scalar_as<int64_t>(root["reg_max"], "reg_max", where(source, root["reg_max"]));
  }
  if (root["end2end"]) {
    definition.end2end =
        scalar_as<bool>(root["end2end"], "end2end", where(source, root["end2end"]));
  }
  for (const char* key : {"depth_multiple", "width_multiple"}) {
    if (!root[key]) continue;
    const double value = scalar_as<double>(root[key], key, where(source, root[key]));
    (key[0] == 'd' ? definition.unscaled.depth : definition.unscaled.width) = value;
  }
  if (root["scale"]) definition.scale = root["scale"].as<std::string>("");
  if (const YAML::Node scales = root["scales"]; scales && scales.IsMap()) {
    for (const auto& entry : scales) {
      const std::string letter = entry.first.as<std::string>("");
      if (letter.size() != 1)
        throw UserError(where(source, entry.first) + ": a scale is one letter");
      definition.scales.emplace_back(letter[0],
                                     read_scale(entry.second, where(source, entry.second)));
    }
  }
}

}  // namespace

YoloDefinition parse_yolo_definition(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& error) {
    throw UserError(source + ":" + std::to_string(error.mark.line + 1) + ": " + error.msg);
  }
  if (!root.IsMap()) throw UserError(source + ": a model definition is a YAML mapping");
  YoloDefinition definition;
  definition.source = source;
  definition.text = text;
  read_parameters(root, definition);
  read_layers(root, "backbone", definition);
  read_layers(root, "head", definition);
  return definition;
}

bool names_definition_file(const std::string& name) {
  const std::string extension = to_lower(std::filesystem::path(name).extension().string());
  return extension == ".yaml" || extension == ".yml";
}

YoloDefinition read_yolo_definition(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw UserError("model=" + path + ": cannot read the model definition");
  std::stringstream text;
  text << file.rdbuf();
  return parse_yolo_definition(text.str(), path);
}

YoloName parse_yolo_name(const std::string& name) {
  // Ultralytics' guess_model_scale and yaml_model_load: the letter after the generation's digits
  // is the scale, and the stem is the name without it (yolov8x-cls -> yolov8-cls); the 'u' of
  // the anchor-free YOLOv5 weights (yolov5nu) names yolov5.yaml.
  static const std::regex form(R"((yolo(?:v)?\d+)([nslmx])(u?)(-cls)?)");
  std::smatch match;
  if (!std::regex_match(name, match, form)) return {};
  const bool v5 = match[1] == "yolov5";
  if (!match[3].str().empty() && !v5) return {};
  return {match[1].str() + match[4].str(), match[2].str()};
}

}  // namespace trainer
