#include "onnx/onnx_export.h"

#include <fmt/format.h>

#include <chrono>
#include <ctime>

#include "util/error.h"
#include "util/text.h"

namespace trainer::onnx_export {
namespace {

// Python's repr() of a str, as Ultralytics' str(dict) writes the class names.
std::string python_repr(const std::string& text) {
  const char quote = text.find('\'') != std::string::npos && text.find('"') == std::string::npos ? '"' : '\'';
  std::string out(1, quote);
  for (const char c : text) {
    if (c == '\\' || c == quote) out.push_back('\\');
    out.push_back(c);
  }
  return out + quote;
}

// Ultralytics' `names` value: str() of a dict from class index to name.
std::string names_dict(const std::vector<std::string>& names) {
  std::vector<std::string> items;
  for (size_t i = 0; i < names.size(); ++i) items.push_back(std::to_string(i) + ": " + python_repr(names[i]));
  return "{" + join(items, ", ") + "}";
}

std::string local_iso_time() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm local{};
  localtime_r(&now, &local);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &local);
  return text;
}

void write_metadata(GraphBuilder& graph, const ModelCard& card, const OnnxOptions& options, int64_t height,
                    int64_t width) {
  graph.metadata("description", "trainer " + card.model_name + " model (" + card.task + ")");
  graph.metadata("author", "trainer");
  graph.metadata("date", local_iso_time());
  if (card.task == "detect") graph.metadata("stride", "32");
  graph.metadata("task", card.task);
  graph.metadata("batch", std::to_string(options.batch));
  graph.metadata("imgsz", fmt::format("[{}, {}]", height, width));
  graph.metadata("channels", std::to_string(card.channels));
  // The normalisation, so a copy predicts without the training data (onnx_metadata's card_of_metadata).
  if (!card.normalization.mean.empty()) {
    graph.metadata("mean", fmt::format("[{}]", fmt::join(card.normalization.mean, ", ")));
    graph.metadata("std", fmt::format("[{}]", fmt::join(card.normalization.std, ", ")));
  }
  if (card.task == "ocr") {
    graph.metadata("charset", join(card.labels, ""));
    graph.metadata("blank", "0");
  } else {
    graph.metadata("names", names_dict(card.labels));
  }
  graph.metadata(kRecipeKey, card.recipe);
  if (!card.model_definition.empty()) graph.metadata(kModelDefinitionKey, card.model_definition);
}

}  // namespace

void unsupported(const std::string& what) { throw UserError("export format=onnx: " + what); }

std::vector<int64_t> parse_imgsz(const std::string& text) {
  std::string digits;
  for (const char c : text) {
    if (c != '[' && c != ']' && c != '(' && c != ')' && c != ' ') digits.push_back(c);
  }
  std::vector<int64_t> sides;
  size_t start = 0;
  while (start <= digits.size()) {
    const size_t comma = std::min(digits.find(',', start), digits.size());
    const std::string side = digits.substr(start, comma - start);
    if (side.empty() || side.find_first_not_of("0123456789") != std::string::npos || side.size() > 6) {
      throw UserError("export: imgsz=" + text + " is not a size; give one side (640) or height,width (480,640)");
    }
    sides.push_back(std::stoll(side));
    start = comma + 1;
  }
  if (sides.size() > 2 || sides.front() < 1 || sides.back() < 1) {
    throw UserError("export: imgsz=" + text + " is not a size; give one side (640) or height,width (480,640)");
  }
  return sides.size() == 1 ? std::vector<int64_t>{sides[0], sides[0]} : sides;
}

OnnxFile export_onnx(const ModelGraph& model_graph, const ModelCard& card, const OnnxOptions& options) {
  if (options.batch < 1) unsupported("batch=" + std::to_string(options.batch) + " must be at least 1");
  const std::vector<int64_t> size = options.imgsz.value_or(std::vector<int64_t>{card.height, card.width});
  const int64_t height = size.at(0), width = size.at(1);
  GraphBuilder graph(options.opset, options.half);
  GraphRequest request;
  request.batch = options.dynamic ? Dim{std::string("batch")} : Dim{options.batch};
  request.channels = card.channels;
  request.height = height;
  request.width = width;
  request.dynamic = options.dynamic;
  request.simplify = options.simplify;
  const FamilyGraph written = model_graph(graph, request);
  OnnxFile file;
  file.input = written.input;
  file.output = written.output;
  const std::string& output = written.value;
  graph.output(output, card.task == "detect" ? "output0" : "output", file.output);
  write_metadata(graph, card, options, height, width);
  if (card.task == "detect") graph.metadata("end2end", written.predictions.empty() ? "False" : "True");
  if (!written.predictions.empty()) graph.metadata(kPredictionsKey, written.predictions);
  if (written.probabilities) graph.metadata(kOutputKey, "probabilities");
  if (!written.opencv_fusion) graph.metadata(kOpenCvFusionKey, "false");
  file.bytes = graph.serialize();
  file.operators = graph.operators();
  return file;
}

}  // namespace trainer::onnx_export
