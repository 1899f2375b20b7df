#include "onnx/onnx_metadata.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "onnx/onnx_export.h"
#include "util/error.h"
#include "util/utf8.h"

namespace trainer::onnx_export {

namespace {

onnx::ModelProto read_model(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot open " + path.string());
  onnx::ModelProto model;
  if (!model.ParseFromIstream(&in)) throw UserError(path.string() + " is not an ONNX model (it does not parse)");
  return model;
}

[[noreturn]] void malformed(const std::string& key, const std::string& value, const std::string& expected) {
  throw UserError("ONNX metadata " + key + "=" + value + " is not " + expected);
}

// Python's repr() of a str starting at text[at] (a quote): the string, `at` moved past it.
std::string python_string(const std::string& text, size_t& at) {
  const char quote = text.at(at++);
  std::string value;
  for (; at < text.size() && text[at] != quote; ++at) {
    if (text[at] != '\\' || at + 1 == text.size()) {
      value.push_back(text[at]);
      continue;
    }
    const char escaped = text[++at];
    value.push_back(escaped == 'n' ? '\n' : escaped == 't' ? '\t' : escaped);
  }
  if (at == text.size()) malformed("names", text, "a {index: 'name'} dict");
  ++at;
  return value;
}

// Ultralytics' `names`, str() of {0: 'person', 1: "it's"}: the names by index.
std::vector<std::string> names_of_dict(const std::string& text) {
  const auto fail = [&]() { malformed("names", text, "a {index: 'name'} dict"); };
  std::vector<std::string> names;
  size_t at = text.find_first_not_of(' ');
  if (at == std::string::npos || text[at] != '{') fail();
  for (++at;;) {
    at = text.find_first_not_of(' ', at);
    if (at == std::string::npos) fail();
    if (text[at] == '}' && names.empty()) break;
    const size_t colon = text.find(':', at);
    if (colon == std::string::npos || text.substr(at, colon - at) != std::to_string(names.size())) fail();
    at = text.find_first_not_of(' ', colon + 1);
    if (at == std::string::npos || (text[at] != '\'' && text[at] != '"')) fail();
    names.push_back(python_string(text, at));
    at = text.find_first_not_of(' ', at);
    if (at == std::string::npos || (text[at] != ',' && text[at] != '}')) fail();
    if (text[at++] == '}') break;
  }
  return names;
}

// "[0.485, 0.456, 0.406]" -> the numbers.
std::vector<double> numbers_of_list(const std::string& key, const std::string& text) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') malformed(key, text, "a list of numbers");
  std::vector<double> numbers;
  std::string item;
  for (const char c : text.substr(1)) {
    if (c != ',' && c != ']') {
      item.push_back(c);
      continue;
    }
    try {
      numbers.push_back(std::stod(item));
    } catch (const std::exception&) {
      malformed(key, text, "a list of numbers");
    }
    item.clear();
  }
  return numbers;
}

}  // namespace

std::optional<ModelCard> card_of_metadata(const std::map<std::string, std::string>& metadata) {
  const auto has = [&](const char* key) { return metadata.count(key) > 0; };
  if (!has("task") || !has("imgsz") || !has("channels")) return std::nullopt;
  ModelCard card;
  card.task = metadata.at("task");
  if (has(kModelDefinitionKey)) card.model_definition = metadata.at(kModelDefinitionKey);
  if (card.task == "ocr") {
    if (!has("charset")) return std::nullopt;
    for (const char32_t c : decode_utf8(metadata.at("charset"), "ONNX metadata charset")) {
      card.labels.push_back(encode_utf8(std::u32string(1, c)));
    }
  } else {
    if (!has("names")) return std::nullopt;
    card.labels = names_of_dict(metadata.at("names"));
  }
  try {
    card.channels = std::stoll(metadata.at("channels"));
  } catch (const std::exception&) {
    malformed("channels", metadata.at("channels"), "a number");
  }
  const std::vector<int64_t> size = parse_imgsz(metadata.at("imgsz"));
  card.height = size[0];
  card.width = size[1];
  if (has("mean") && has("std")) {
    card.normalization = {numbers_of_list("mean", metadata.at("mean")), numbers_of_list("std", metadata.at("std"))};
  } else if (card.task == "detect") {
    card.normalization = unit_scaled_pixels(static_cast<size_t>(card.channels));
  } else {
    return std::nullopt;
  }
  return card;
}

OnnxFileInfo read_onnx_file_info(const std::filesystem::path& path) {
  const onnx::ModelProto model = read_model(path);
  if (model.graph().input_size() != 1 ||
      model.graph().input(0).type().tensor_type().elem_type() != onnx::TensorProto::FLOAT) {
    throw UserError(path.string() + ": OpenCV DNN runs fp32 ONNX files with one input; export it without half");
  }
  OnnxFileInfo info;
  for (const auto& entry : model.metadata_props()) info.metadata[entry.key()] = entry.value();
  const auto& shape = model.graph().input(0).type().tensor_type().shape();
  if (shape.dim_size() > 0) info.batch = shape.dim(0).dim_value();
  return info;
}

std::string with_input_shape(const std::filesystem::path& path, const std::vector<int64_t>& shape) {
  onnx::ModelProto model = read_model(path);
  onnx::TensorShapeProto* dims =
      model.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  dims->clear_dim();
  for (const int64_t size : shape) dims->add_dim()->set_dim_value(size);
  std::string bytes;
  model.SerializeToString(&bytes);
  return bytes;
}

std::string graph_up_to(const std::filesystem::path& path, const std::string& value) {
  onnx::ModelProto model = read_model(path);
  onnx::GraphProto* graph = model.mutable_graph();
  // Back from `value`, the nodes it needs; the others (the tail) are dropped.
  std::set<std::string> needed{value};
  std::vector<onnx::NodeProto> kept;
  for (int i = graph->node_size() - 1; i >= 0; --i) {
    const onnx::NodeProto& node = graph->node(i);
    const bool used = std::any_of(node.output().begin(), node.output().end(),
                                  [&](const std::string& output) { return needed.count(output) > 0; });
    if (!used) continue;
    needed.insert(node.input().begin(), node.input().end());
    kept.push_back(node);
  }
  if (kept.empty()) throw UserError(path.string() + ": no node computes " + value + " (metadata " + kPredictionsKey + ")");
  graph->clear_node();
  for (auto node = kept.rbegin(); node != kept.rend(); ++node) *graph->add_node() = *node;
  const onnx::ValueInfoProto declared = graph->output(0);
  graph->clear_output();
  onnx::ValueInfoProto* output = graph->add_output();
  output->set_name(value);
  onnx::TypeProto::Tensor* type = output->mutable_type()->mutable_tensor_type();
  type->set_elem_type(declared.type().tensor_type().elem_type());
  // OpenCV's importer wants a shape on every output; the predictions are [batch, 4 + classes, anchors].
  for (const char* dim : {"batch", "rows", "anchors"}) type->mutable_shape()->add_dim()->set_dim_param(dim);
  std::string bytes;
  model.SerializeToString(&bytes);
  return bytes;
}

}  // namespace trainer::onnx_export
