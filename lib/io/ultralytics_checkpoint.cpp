#include "io/ultralytics_checkpoint.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "data/detect/detect_dataset_config.h"
#include "io/pickled_module.h"
#include "io/torch_pickle.h"
#include "util/error.h"

namespace trainer {
namespace {

// yolov8.yaml's scales: [depth, width] and the first layer's channels, make_divisible(64 * width, 8).
struct ScaleRow {
  const char* scale;
  double depth, width;
  int64_t stem_channels;
};
constexpr ScaleRow kScales[] = {
    {"n", 0.33, 0.25, 16}, {"s", 0.33, 0.50, 32}, {"m", 0.67, 0.75, 48}, {"l", 1.00, 1.00, 64}, {"x", 1.00, 1.25, 80}};

c10::IValue entry_of(const c10::impl::GenericDict& dict, const std::string& key) {
  return dict.contains(key) ? dict.at(key) : c10::IValue();
}

double number(const c10::IValue& value) {
  return value.isDouble() ? value.toDouble() : value.isInt() ? static_cast<double>(value.toInt()) : NAN;
}

using Yaml = std::optional<c10::impl::GenericDict>;

// The model's `yaml` (the dict yaml_model_load made of yolov8n.yaml), with string keys.
Yaml model_yaml(const c10::IValue& model) {
  const c10::IValue yaml = pickled_attribute(model, "yaml");
  if (!yaml.isGenericDict() || *yaml.toGenericDict().keyType() != *c10::StringType::get()) return std::nullopt;
  return yaml.toGenericDict();
}

std::string scale_of(const Yaml& yaml, const NamedTensors& weights) {
  if (yaml) {
    const c10::IValue scale = entry_of(*yaml, "scale");  // 8.0.x later and 8.1+: guess_model_scale
    if (scale.isString() && !scale.toStringRef().empty()) return scale.toStringRef();
    const double depth = number(entry_of(*yaml, "depth_multiple")), width = number(entry_of(*yaml, "width_multiple"));
    for (const ScaleRow& row : kScales) {
      if (std::abs(depth - row.depth) < 1e-6 && std::abs(width - row.width) < 1e-6) return row.scale;
    }
  }
  for (const auto& [name, tensor] : weights) {
    if (name != "model.0.conv.weight") continue;
    for (const ScaleRow& row : kScales) {
      if (tensor.dim() == 4 && tensor.size(0) == row.stem_channels) return row.scale;
    }
  }
  return "";
}

// yaml["nc"], else the output channels of the last class convolution of the Detect head (the
// rows of the Classify head's linear layer).
int64_t classes_of(const Yaml& yaml, const NamedTensors& weights, bool classifies) {
  if (yaml && entry_of(*yaml, "nc").isInt()) return entry_of(*yaml, "nc").toInt();
  const std::string suffix = classifies ? ".linear.weight" : ".cv3.0.2.weight";
  for (const auto& [name, tensor] : weights) {
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        tensor.dim() == (classifies ? 2 : 4)) {
      return tensor.size(0);
    }
  }
  return 0;
}

// `names`: {0: "person", ...} (8.0 and later) or a list; "" for an index the file skips.
std::vector<std::string> names_of(const c10::IValue& model) {
  const c10::IValue names = pickled_attribute(model, "names");
  std::vector<std::string> out;
  if (names.isList()) {
    for (const c10::IValue& name : names.toListRef()) out.push_back(name.isString() ? name.toStringRef() : "");
  } else if (names.isGenericDict() && *names.toGenericDict().keyType() == *c10::IntType::get()) {
    std::map<int64_t, std::string> by_index;
    for (const auto& entry : names.toGenericDict()) {
      if (entry.value().isString()) by_index[entry.key().toInt()] = entry.value().toStringRef();
    }
    if (!by_index.empty() && by_index.begin()->first >= 0 && by_index.rbegin()->first < kMaxClasses) {
      out.resize(by_index.rbegin()->first + 1);
      for (const auto& [index, name] : by_index) out[index] = name;
    }
  }
  return out;
}

// Nesting a model definition never reaches (scales: {n: [d, w, c]} is 3 deep); deeper values of a
// crafted file are written as null rather than recursed into.
constexpr int kMaxYamlDepth = 8;

void emit(YAML::Emitter& out, const c10::IValue& value, int depth = 0) {
  if (depth > kMaxYamlDepth) {
    out << YAML::Null;
  } else if (value.isGenericDict()) {
    out << YAML::BeginMap;
    for (const auto& entry : value.toGenericDict()) {
      if (!entry.key().isString()) continue;
      out << YAML::Key << entry.key().toStringRef() << YAML::Value;
      emit(out, entry.value(), depth + 1);
    }
    out << YAML::EndMap;
  } else if (value.isList()) {
    out << YAML::Flow << YAML::BeginSeq;
    for (const c10::IValue& item : value.toListRef()) emit(out, item, depth + 1);
    out << YAML::EndSeq;
  } else if (value.isTuple()) {
    out << YAML::Flow << YAML::BeginSeq;
    for (const c10::IValue& item : value.toTupleRef().elements()) emit(out, item, depth + 1);
    out << YAML::EndSeq;
  } else if (value.isString()) {
    out << value.toStringRef();
  } else if (value.isBool()) {
    out << (value.toBool() ? "True" : "False");  // as Ultralytics' files spell them
  } else if (value.isInt()) {
    out << value.toInt();
  } else if (value.isDouble()) {
    out << value.toDouble();
  } else {
    out << YAML::Null;  // None, and anything a model definition cannot hold
  }
}

// The yaml dict as a model definition's text: its layer lists in flow style, one row a line.
std::string definition_of(const Yaml& yaml) {
  if (!yaml || !entry_of(*yaml, "backbone").isList() || !entry_of(*yaml, "head").isList()) return "";
  YAML::Emitter out;
  out.SetDoublePrecision(17);
  out << YAML::BeginMap;
  for (const auto& entry : *yaml) {
    if (!entry.key().isString()) continue;
    const std::string& key = entry.key().toStringRef();
    out << YAML::Key << key << YAML::Value;
    if (key == "backbone" || key == "head") {
      out << YAML::BeginSeq;
      for (const c10::IValue& row : entry.value().toListRef()) emit(out, row, 1);
      out << YAML::EndSeq;
    } else {
      emit(out, entry.value());
    }
  }
  out << YAML::EndMap;
  return out.c_str();
}

}  // namespace

bool has_pickled_model(const c10::IValue& archive) {
  if (!archive.isGenericDict() || *archive.toGenericDict().keyType() != *c10::StringType::get()) return false;
  const c10::impl::GenericDict& dict = archive.toGenericDict();
  return is_pickled_module(entry_of(dict, "ema")) || is_pickled_module(entry_of(dict, "model"));
}

UltralyticsModel read_ultralytics_model(const c10::IValue& archive, const std::string& path) {
  const c10::impl::GenericDict& dict = archive.toGenericDict();
  UltralyticsModel result;
  result.entry = is_pickled_module(entry_of(dict, "ema")) ? "ema" : "model";
  const c10::IValue model = entry_of(dict, result.entry);
  result.type = pickled_object(model)->type;
  const std::string origin = path + " (entry '" + result.entry + "')";
  const std::string prefix = "ultralytics.nn.tasks.";
  result.classifies = result.type == prefix + "ClassificationModel";
  if (result.type.rfind(prefix, 0) == 0 && result.type != prefix + "DetectionModel" && !result.classifies) {
    throw UserError(origin + " holds a " + result.type + "; of Ultralytics' models detection (" + prefix +
                    "DetectionModel) and classification (ClassificationModel) train here");
  }
  result.weights = pickled_state_dict(model, origin);
  for (auto& [name, tensor] : result.weights) {
    if (tensor.scalar_type() == at::kHalf || tensor.scalar_type() == at::kBFloat16) tensor = tensor.to(at::kFloat);
  }
  const Yaml yaml = model_yaml(model);
  result.scale = scale_of(yaml, result.weights);
  result.classes = classes_of(yaml, result.weights, result.classifies);
  if (yaml && entry_of(*yaml, "yaml_file").isString()) result.yaml_file = entry_of(*yaml, "yaml_file").toStringRef();
  result.definition = definition_of(yaml);
  // A count read from the file sizes the head built for it: billions would be a memory bomb.
  if (result.classes < 0 || result.classes > kMaxClasses) {
    throw UserError(origin + ": the model claims " + std::to_string(result.classes) +
                    " classes, not a count from 1 to " + std::to_string(kMaxClasses));
  }
  result.names = names_of(model);
  const c10::IValue version = entry_of(dict, "version");
  if (version.isString()) result.version = version.toStringRef();
  const c10::IValue train_args = entry_of(dict, "train_args");
  if (train_args.isGenericDict() && entry_of(train_args.toGenericDict(), "data").isString()) {
    result.data = entry_of(train_args.toGenericDict(), "data").toStringRef();
  }
  if (train_args.isGenericDict() && entry_of(train_args.toGenericDict(), "imgsz").isInt()) {
    result.imgsz = std::clamp<int64_t>(entry_of(train_args.toGenericDict(), "imgsz").toInt(), 0, 1 << 16);
  }
  return result;
}

}  // namespace trainer
