#include "io/pretrained.h"

#include "io/checkpoint.h"
#include "io/state_dict.h"
#include "io/tensor_archive.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {

void load_pretrained(torch::nn::Module& model, const std::string& path) {
  const c10::IValue archive = read_archive(path);
  std::map<std::string, torch::Tensor> weights;
  if (archive.isGenericDict() && archive.toGenericDict().contains("format_version")) {
    const Checkpoint checkpoint = load_checkpoint(path);
    weights = to_map(checkpoint.ema.empty() ? checkpoint.model : checkpoint.ema);
  } else {
    weights = tensor_map(archive);
  }
  const LoadReport report = load_state_dict(model, weights, false);
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
