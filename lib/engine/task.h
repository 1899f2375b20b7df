// A task bridges a model and the engine: it owns the model and the datasets, computes the loss
// of a micro-batch and validates. The engine owns everything about training (accumulation, AMP,
// clipping, EMA, schedule, checkpoints) and never knows which model it trains.
#pragma once
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <torch/nn/module.h>

#include "config/settings.h"
#include "data/batch.h"
#include "data/loader.h"
#include "data/sampler.h"
#include "dist/collective.h"
#include "engine/meters.h"
#include "engine/metrics.h"

namespace trainer {

struct LossOutput {
  torch::Tensor total;  ///< 0-dim, summed over the micro-batch's samples (the engine normalises)
  torch::Tensor parts;  ///< [loss_names().size()], detached, summed over samples, for logging
};

struct PredictOptions {
  int64_t top_k = 5;  ///< classes listed per image (classification)
  int digits = 3;     ///< decimals of the scores shown
  std::filesystem::path project = "runs";  ///< where a task that writes files makes <project>/<task>/predict
  bool exist_ok = false;                   ///< reuse that folder instead of numbering predict2, predict3 …
};

// Pads a validation batch to the fixed validation batch size with zero rows (R28: one input shape);
// the extra rows are dropped from the output before any loss or metric.
torch::Tensor padded_rows(const torch::Tensor& input, int64_t rows);

using ValidationVisit = std::function<void(size_t position, const Batch& batch, const torch::Tensor& input)>;

// Validation's batch loop: the model in eval mode (its mode restored afterwards) and inference
// mode; each of the `batches` batches of `loader` goes to `device`, and `visit` gets its position,
// the batch (batch.size real rows) and its input padded to `rows` rows (R28: one input shape), whose
// output rows past batch.size it drops.
void for_each_validation_batch(torch::nn::Module& model, Loader& loader, size_t batches, int64_t rows,
                               const torch::Device& device, const ValidationVisit& visit);

// A task's loss() cut at the model's output: loss(batch) computes
// loss_of_output(model_output(batch), batch). A task whose loss cannot be captured in a CUDA
// graph has one, so the graph executor can capture the model's forward and backward and run
// only the loss eagerly between them.
class LossSplit {
 public:
  virtual ~LossSplit() = default;
  // The model's output for a micro-batch already on the device (inside autocast when AMP is on).
  virtual torch::Tensor model_output(const Batch& batch) = 0;
  // The loss of that output, as loss() returns it.
  virtual LossOutput loss_of_output(const torch::Tensor& output, const Batch& batch) = 0;
};

class Task {
 public:
  virtual ~Task() = default;
  virtual std::string name() const = 0;
  virtual torch::nn::Module& model() = 0;
  virtual int64_t classes() const = 0;
  // Sample indices of the training split (after `fraction`), in a fixed order.
  virtual const std::vector<size_t>& train_indices() const = 0;
  // The micro-batches of one epoch as sample indices, a pure function of (seed, epoch) so a
  // resumed run replays them. Every epoch has the same number of batches. The default shuffles
  // train_indices() and cuts runs of `batch`; tasks with shape buckets override it.
  virtual std::vector<std::vector<size_t>> epoch_batches(uint64_t seed, int64_t epoch, int64_t batch) const;
  // Builds a micro-batch on the CPU from sample indices; called from loader threads.
  virtual Loader::Collate train_collate(uint64_t seed) const = 0;
  virtual std::vector<std::string> loss_names() const = 0;
  // What the summed loss of a micro-batch is divided by before backward, given the samples of its
  // whole accumulation group. The default makes an update's loss the mean over the group's
  // samples (every sample weighs the same, however micro-batches differ in size); a task whose
  // hyperparameters were tuned for another convention overrides it.
  virtual double loss_divisor(int64_t group_samples) const { return static_cast<double>(group_samples); }
  // Forward and loss of one micro-batch already on the device (inside autocast when AMP is on).
  virtual LossOutput loss(const Batch& batch) = 0;
  // Whether loss() can be captured in a CUDA graph with the rest of the step: no host sync, no
  // data-dependent shapes or branches. A task that says no must have a loss_split().
  virtual bool loss_capture_safe() const { return true; }
  // loss() cut at the model's output, or nullptr where the task has no such cut.
  virtual LossSplit* loss_split() { return nullptr; }
  // Input dimensions that vary by design (OCR width, R2); a graph is captured per value, so the
  // task keeps them to a few (buckets). Other dimensions change only in a short last batch.
  virtual std::vector<int64_t> dynamic_input_dims() const { return {}; }
  virtual std::vector<std::string> metric_names() const = 0;
  // The meters a validation pass fills (engine/meters.h), owned by the task.
  virtual std::vector<Meter*> validation_meters() = 0;
  // Evaluates model() as it is now (the engine swaps EMA weights in) in inference mode on this
  // shard of the validation batches, adding to validation_meters(). A distributed run splits
  // validation among its ranks and sums the meters over them.
  virtual void validate_shard(const torch::Device& device, const Shard& shard) = 0;
  // The metrics of the meters as they stand.
  virtual Metrics metrics() const = 0;
  // One validation: the meters reset, this rank's shard of `shard.count` (all of it by default)
  // validated, the meters summed over `collective`'s ranks, the metrics.
  Metrics validate(const torch::Device& device, const Shard& shard = {}, Collective& collective = single_process());
  // Draws a batch made by train_collate() with its labels into `path` (train_batch0.jpg, …); a
  // task without a picture of its samples (smoke) draws nothing.
  virtual void plot_batch(const Batch& batch, const std::filesystem::path& path) const {}
  // Draws what the training split's labels hold into `path` (labels.jpg), where the task has such
  // a picture (detection: class counts, box shapes, centres and sizes).
  virtual void plot_labels(const std::filesystem::path& path) const {}
  // Writes back what the task derived from the data (the OCR character set of `charset: labels`),
  // so the recipe saved with the weights rebuilds the same model without the training data.
  virtual void pin_derived_settings(Settings& settings) const {}
  // The run's epochs as planned, before train_collate: `updates=` derives them from the batch
  // geometry, so they may differ from the recipe's `epochs` (detection's close_mosaic counts back from them).
  virtual void set_planned_epochs(int64_t epochs) {}
  // One line per image ("path: result") for `trainer predict`; images are files or folders.
  // The default says the task has no prediction.
  virtual std::vector<std::string> predict(const std::vector<std::string>& sources, const torch::Device& device,
                                           const PredictOptions& options);
};

}  // namespace trainer
