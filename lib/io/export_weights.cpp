#include "io/export_weights.h"

#include <ATen/core/Dict.h>
#include <ATen/core/ivalue.h>

#include "io/checkpoint.h"
#include "io/pretrained.h"
#include "io/safetensors.h"
#include "io/tensor_archive.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace trainer {

const NamedTensors& model_weights_of(const Checkpoint& checkpoint, const std::filesystem::path& path) {
  if (checkpoint.model.empty()) {
    throw UserError("export: " + path.string() +
                    " holds no model weights besides its EMA weights (a stripped best.pt); export them without "
                    "--model-weights, or take the run's last.pt");
  }
  return checkpoint.model;
}
namespace {

namespace fs = std::filesystem;

std::optional<WeightsFormat> format_of_extension(const fs::path& path) {
  if (path.extension() == ".pt") return WeightsFormat::pt;
  if (path.extension() == ".safetensors") return WeightsFormat::safetensors;
  return std::nullopt;
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code error;
  if (fs::equivalent(a, b, error)) return true;
  return fs::weakly_canonical(a, error) == fs::weakly_canonical(b, error);
}

fs::path output_path(const fs::path& checkpoint, WeightsFormat format, const ExportOptions& options) {
  if (options.output) {
    if (same_file(*options.output, checkpoint)) {
      throw UserError("export: the output " + options.output->string() + " is the checkpoint itself; choose another -o");
    }
    return *options.output;
  }
  fs::path output = checkpoint.parent_path() / (checkpoint.stem().string() + "." + format_name(format));
  // Checkpoints are .pt files, so a .pt export under the same stem would replace its source.
  if (same_file(output, checkpoint)) output = checkpoint.parent_path() / (checkpoint.stem().string() + ".weights.pt");
  return output;
}

// torch.save-compatible and atomic like the checkpoints, so a failed export keeps an older one.
void write_pt(const fs::path& path, const NamedTensors& tensors) {
  c10::impl::GenericDict dict(c10::StringType::get(), c10::TensorType::get());
  for (const auto& [name, tensor] : tensors) dict.insert(name, tensor);
  try {
    replace_file_atomically(path, [&](const fs::path& temporary) { write_archive(temporary.string(), c10::IValue(dict)); });
  } catch (const std::exception& error) {
    throw UserError("cannot write " + path.string() + " (" + error.what() + "); the previous file, if any, is unchanged");
  }
}

}  // namespace

WeightsFormat parse_weights_format(const std::string& name) {
  if (name == "pt") return WeightsFormat::pt;
  if (name == "safetensors") return WeightsFormat::safetensors;
  throw UserError("unknown weights format '" + name + "' (expected pt or safetensors)");
}

const char* format_name(WeightsFormat format) { return format == WeightsFormat::pt ? "pt" : "safetensors"; }

ExportResult export_weights(const fs::path& checkpoint_path, const ExportOptions& options) {
  const std::optional<WeightsFormat> implied = options.output ? format_of_extension(*options.output) : std::nullopt;
  if (options.format && implied && *options.format != *implied) {
    throw UserError("export: --format " + std::string(format_name(*options.format)) + " but the output " +
                    options.output->string() + " has the extension of " + format_name(*implied));
  }
  const WeightsFormat format = options.format.value_or(implied.value_or(WeightsFormat::safetensors));
  // Ultralytics' own checkpoints too: their model's weights, read without running the file.
  const Checkpoint checkpoint = read_trained(checkpoint_path.string()).checkpoint;

  ExportResult result;
  result.format = format;
  result.ema = !options.model_weights && !checkpoint.ema.empty();
  if (options.model_weights) model_weights_of(checkpoint, checkpoint_path);
  result.epoch = checkpoint.epoch;
  result.output = output_path(checkpoint_path, format, options);
  NamedTensors tensors;
  for (const auto& [name, tensor] : result.ema ? checkpoint.ema : checkpoint.model) {
    // Checkpoints store plain module names (R22); a wrapper prefix here would be a bug upstream,
    // and torchvision's strict load_state_dict would reject the file.
    TORCH_INTERNAL_ASSERT(name.rfind("module.", 0) != 0 && name.rfind("_orig_mod.", 0) != 0,
                          "wrapper prefix in checkpoint key '", name, "'");
    torch::Tensor out = tensor.detach().cpu().contiguous();
    if (options.half && out.is_floating_point()) out = out.to(torch::kHalf);
    tensors.emplace_back(name, out);
  }
  result.tensors = tensors.size();

  if (format == WeightsFormat::pt) {
    write_pt(result.output, tensors);
  } else {
    // "format": "pt" is what Hugging Face loaders check to treat the file as PyTorch weights.
    write_safetensors(result.output.string(), tensors,
                      {{"format", "pt"},
                       {"format_version", std::to_string(kExportFormatVersion)},
                       {"task", checkpoint.task},
                       {"epoch", std::to_string(checkpoint.epoch)},
                       {"weights", result.ema ? "ema" : "model"},
                       {"dtype", options.half ? "float16" : "as trained"},
                       {"source", checkpoint_path.string()}});
  }
  return result;
}

}  // namespace trainer
