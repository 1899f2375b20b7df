// `trainer export`: a checkpoint's weights alone (ours, or Ultralytics' own .pt, read without
// running it), for deployment or another framework. A .pt
// export is a plain dict of name -> tensor that torch.load(weights_only=True) returns as a state
// dict torchvision takes strictly; a .safetensors export holds the same tensors plus metadata.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "io/checkpoint.h"

namespace trainer {

enum class WeightsFormat { pt, safetensors };

struct ExportOptions {
  std::optional<WeightsFormat> format;  ///< unset: from the output's extension, else safetensors
  bool half = false;                    ///< floating tensors to fp16; integer buffers unchanged
  bool model_weights = false;           ///< the raw model weights even when the checkpoint has EMA
  std::optional<std::filesystem::path> output;  ///< unset: next to the checkpoint, <stem>.<format>
};

struct ExportResult {
  std::filesystem::path output;
  WeightsFormat format = WeightsFormat::safetensors;
  bool ema = false;  ///< the EMA weights were written
  size_t tensors = 0;
  int64_t epoch = 0;
};

// Bumped when what an export holds changes meaning; stored as "format_version" in safetensors.
inline constexpr int64_t kExportFormatVersion = 1;

// "pt" or "safetensors"; UserError otherwise.
WeightsFormat parse_weights_format(const std::string& name);
const char* format_name(WeightsFormat format);

// The checkpoint's model weights (`--model-weights`); a stripped best.pt holds only its EMA weights,
// which is a UserError naming the file and the way out.
const NamedTensors& model_weights_of(const Checkpoint& checkpoint, const std::filesystem::path& path);

// Writes atomically (temporary file, fsync, rename). Never overwrites the checkpoint itself: a
// default .pt output that would be the checkpoint becomes <stem>.weights.pt, and -o naming it is a
// UserError. Errors name the file.
ExportResult export_weights(const std::filesystem::path& checkpoint, const ExportOptions& options);

}  // namespace trainer
