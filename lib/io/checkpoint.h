// One checkpoint file = one dict that Python's torch.load(path, weights_only=True) opens:
// {"format_version", "task", "model", "ema", "optimizer", "scaler", "grads", "rng", "progress",
//  "epoch", "micro_batch", "updates", "best_fitness", "recipe", "card"}. Keys of "model"/"ema" are
// plain module names (R22); "card" is what inference needs beyond the recipe (class names,
// channels, normalisation: what the data set told training), so the file predicts without the
// data; everything else is what an exact resume needs.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/Tensor.h>

#include "io/model_card.h"

namespace c10 {
struct IValue;
}

namespace trainer {

using NamedTensors = std::vector<std::pair<std::string, at::Tensor>>;

struct Checkpoint {
  static constexpr int64_t kFormatVersion = 1;
  std::string task;
  NamedTensors model;
  NamedTensors ema;        ///< empty when EMA is off
  NamedTensors optimizer;
  NamedTensors scaler;
  NamedTensors grads;      ///< accumulated gradients when saved inside an accumulation group
  NamedTensors rng;        ///< generator states ("cpu", "cuda:N")
  NamedTensors progress;   ///< loop counters and the epoch's running sums, as 0-dim tensors
  int64_t epoch = 0;       ///< completed epochs
  int64_t micro_batch = 0; ///< micro-batches done in epoch `epoch` (0 at an epoch boundary)
  int64_t updates = 0;     ///< optimizer updates so far
  double best_fitness = 0;
  std::string recipe;      ///< resolved recipe (YAML)
  // Absent in files written before cards were (their tasks read names from the data); its
  // recipe is left empty in the file and filled from `recipe` when read.
  std::optional<ModelCard> card;
};

// Writes to a temporary file in the same folder, fsyncs and renames, so a crash or a full disk
// never leaves a truncated file under `path`. Errors are UserErrors naming the path.
void save_checkpoint(const std::filesystem::path& path, const Checkpoint& checkpoint);
Checkpoint load_checkpoint(const std::filesystem::path& path);
// What best.pt keeps, as Ultralytics' strip_optimizer: the EMA weights (the model's when the run
// has no EMA) in fp16, integer buffers unchanged, with the task, epoch, updates, fitness,
// recipe and card; no optimizer, scaler, gradients, generator states or loop counters (a few MB for
// YOLOv8n). The format stays 1: the dropped entries are empty dicts.
Checkpoint strip_for_inference(const Checkpoint& checkpoint);
// Whether `checkpoint` is such a stripped one: nothing to resume from.
bool is_stripped(const Checkpoint& checkpoint);
// The checkpoint in a value read_archive returned from `path` (named in errors).
Checkpoint checkpoint_of(const c10::IValue& archive, const std::filesystem::path& path);
std::map<std::string, at::Tensor> to_map(const NamedTensors& tensors);
// Same names in the same order with bit-identical values (resume and round-trip checks).
bool identical(const NamedTensors& a, const NamedTensors& b);

}  // namespace trainer
