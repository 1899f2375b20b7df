#include "io/pretrained.h"

#include <filesystem>

#include "io/checkpoint.h"
#include "io/safetensors.h"
#include "io/state_dict.h"
#include "io/tensor_archive.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

// By extension, or by content for files saved under another name (hub caches, `model.bin`).
bool is_safetensors(const std::string& path) {
  return std::filesystem::path(path).extension() == ".safetensors" || looks_like_safetensors(path);
}

std::map<std::string, torch::Tensor> read_weights(const std::string& path) {
  if (is_safetensors(path)) {
    std::map<std::string, torch::Tensor> weights;
    for (auto& [name, tensor] : read_safetensors(path)) weights.emplace(name, std::move(tensor));
    return weights;
  }
  const c10::IValue archive = read_archive(path);
  if (archive.isGenericDict() && archive.toGenericDict().contains("format_version")) {
    const Checkpoint checkpoint = load_checkpoint(path);
    return to_map(checkpoint.ema.empty() ? checkpoint.model : checkpoint.ema);
  }
  return tensor_map(archive);
}

}  // namespace

void load_pretrained(torch::nn::Module& model, const std::string& path) {
  const LoadReport report = load_state_dict(model, read_weights(path), false);
  if (report.loaded.empty()) {
    throw UserError(path + ": no tensor matches the model (" + std::to_string(report.unexpected.size()) +
                    " unexpected keys, e.g. '" + (report.unexpected.empty() ? "" : report.unexpected.front()) + "')");
  }
  spdlog::info("pretrained: loaded {} tensors from {}", report.loaded.size(), path);
  if (!report.mismatched.empty()) spdlog::warn("pretrained: skipped (shape differs): {}", join(report.mismatched, "; "));
  if (!report.missing.empty()) spdlog::warn("pretrained: not in the file, left as initialised: {}", join(report.missing, ", "));
  if (!report.unexpected.empty()) spdlog::warn("pretrained: ignored keys not in the model: {}", join(report.unexpected, ", "));
}

}  // namespace trainer
