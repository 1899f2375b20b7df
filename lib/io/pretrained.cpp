#include "io/pretrained.h"

#include <filesystem>

#include "io/checkpoint.h"
#include "io/pickled_module.h"
#include "io/safetensors.h"
#include "io/state_dict.h"
#include "io/torch_pickle.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

// By extension, or by content for files saved under another name (hub caches, `model.bin`).
bool is_safetensors(const std::string& path) {
  return std::filesystem::path(path).extension() == ".safetensors" || looks_like_safetensors(path);
}

// A non-empty dict of name -> tensor: what `module.state_dict()` is.
bool is_state_dict(const c10::IValue& value) {
  if (!value.isGenericDict() || value.toGenericDict().empty()) return false;
  for (const auto& entry : value.toGenericDict()) {
    if (!entry.key().isString() || !entry.value().isTensor()) return false;
  }
  return true;
}

// What an Ultralytics model tells of itself, so it predicts and exports without data: its names
// (when the file has one per class) and Ultralytics' input, RGB scaled to [0, 1] (letterboxed for
// detection, at the recipe's imgsz; centre-cropped for classification, at its training size). The model's name is its family's to
// give (families/model_family.h's ultralytics_architecture).
constexpr int64_t kClassifierSide = 224;

std::optional<ModelCard> card_of(const UltralyticsModel& model) {
  if (model.scale.empty() || model.names.empty() || static_cast<int64_t>(model.names.size()) != model.classes) {
    return std::nullopt;
  }
  ModelCard card;
  card.task = model.classifies ? "classify" : "detect";
  card.labels = model.names;
  card.normalization = unit_scaled_pixels();
  // A classifier's input is resized and centre-cropped to the size it was trained at (Ultralytics'
  // released -cls files: 224).
  if (model.classifies) card.height = card.width = model.imgsz > 0 ? model.imgsz : kClassifierSide;
  return card;
}

}  // namespace

PretrainedWeights read_pretrained(const std::string& path) {
  if (is_safetensors(path)) {
    PretrainedWeights weights;
    for (auto& [name, tensor] : read_safetensors(path)) weights.tensors.emplace(name, std::move(tensor));
    return weights;
  }
  PretrainedWeights weights;
  const c10::IValue archive = read_torch_pickle(path, PythonObjects::inert);
  if (is_pickled_module(archive)) {  // torch.save(model)
    weights.tensors = to_map(pickled_state_dict(archive, path));
    return weights;
  }
  if (!archive.isGenericDict()) {
    throw UserError("'" + path + "' holds a " + archive.tagKind() +
                    ", not a state dict (a dict of name -> tensor) or a checkpoint dict");
  }
  const c10::impl::GenericDict dict = archive.toGenericDict();
  if (dict.contains("format_version")) {
    const Checkpoint checkpoint = checkpoint_of(archive, path);
    weights.entry = checkpoint.ema.empty() ? "model" : "ema";
    weights.tensors = to_map(checkpoint.ema.empty() ? checkpoint.model : checkpoint.ema);
    return weights;
  }
  if (is_state_dict(archive)) {
    weights.tensors = tensor_map(archive);
    return weights;
  }
  if (has_pickled_model(archive)) {
    UltralyticsModel model = read_ultralytics_model(archive, path);
    weights.entry = model.entry;
    weights.tensors = to_map(model.weights);
    weights.ultralytics = std::move(model);
    return weights;
  }
  for (const std::string key : {"state_dict", "model_state_dict", "model", "ema"}) {
    if (dict.contains(key) && is_state_dict(dict.at(key))) {
      weights.entry = key;
      weights.tensors = tensor_map(dict.at(key));
      return weights;
    }
  }
  std::vector<std::string> keys;
  for (const auto& entry : dict) {
    keys.push_back(entry.key().isString() ? "'" + entry.key().toStringRef() + "'"
                                          : entry.key().tagKind());
    if (keys.size() == 8) break;
  }
  throw UserError("'" + path + "' holds no state dict: expected a dict of name -> tensor, or " +
                  "one under 'state_dict', 'model_state_dict', 'model' or 'ema' (its entries: " +
                  join(keys, ", ") + (dict.size() > keys.size() ? ", ..." : "") + ")");
}

TrainedFile read_trained(const std::string& path) {
  const c10::IValue archive = read_torch_pickle(path, PythonObjects::inert);
  TrainedFile file;
  if (!has_pickled_model(archive)) {
    file.checkpoint = checkpoint_of(archive, path);
    return file;
  }
  file.ultralytics = read_ultralytics_model(archive, path);
  file.checkpoint.task = "detect";
  file.checkpoint.card = card_of(*file.ultralytics);
  (file.ultralytics->entry == "ema" ? file.checkpoint.ema : file.checkpoint.model) = file.ultralytics->weights;
  return file;
}

void load_pretrained(torch::nn::Module& model, const std::string& path) {
  const PretrainedWeights weights = read_pretrained(path);
  const LoadReport report = load_state_dict(model, weights.tensors, false);
  const std::string source = weights.entry.empty() ? path : path + " (entry '" + weights.entry + "')";
  if (report.loaded.empty()) {
    const std::string example = !report.mismatched.empty()   ? report.mismatched.front()
                                : !report.unexpected.empty() ? report.unexpected.front()
                                                             : "";
    throw UserError(source + ": no tensor matches the model (" + std::to_string(report.unexpected.size()) +
                    " unexpected keys, " + std::to_string(report.mismatched.size()) + " of another shape, e.g. '" +
                    example + "')");
  }
  spdlog::info("pretrained: loaded {} tensors from {}", report.loaded.size(), source);
  if (weights.ultralytics) {
    const UltralyticsModel& file = *weights.ultralytics;
    spdlog::info("pretrained: {} (Ultralytics {}), scale {}, {} classes", file.type,
                 file.version.empty() ? "version unknown" : file.version, file.scale.empty() ? "?" : file.scale,
                 file.classes);
  }
  if (!report.mismatched.empty()) {
    spdlog::warn("pretrained: skipped {} (shape differs): {}", report.mismatched.size(),
                 join_first(report.mismatched, "; "));
  }
  if (!report.missing.empty()) {
    spdlog::warn("pretrained: {} not in the file, left as initialised: {}", report.missing.size(),
                 join_first(report.missing, ", "));
  }
  if (!report.unexpected.empty()) {
    spdlog::warn("pretrained: ignored {} keys not in the model: {}", report.unexpected.size(),
                 join_first(report.unexpected, ", "));
  }
}

}  // namespace trainer
