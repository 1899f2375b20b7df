// A task's training part: what the loop and the step executors drive. It hands out the training
// split's batches and builds them, computes the loss of a micro-batch, says how that loss may be
// captured in a CUDA graph, and draws what the run folder shows of its training data.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "data/batch.h"
#include "data/loader.h"

namespace trainer {

struct LossOutput {
  torch::Tensor total;  ///< 0-dim, summed over the micro-batch's samples (the engine normalises)
  torch::Tensor parts;  ///< [loss_names().size()], detached, summed over samples, for logging
};

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

class TaskTraining {
 public:
  virtual ~TaskTraining() = default;
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
  // Draws a batch made by train_collate() with its labels into `path` (train_batch0.jpg, …); a
  // task without a picture of its samples (smoke) draws nothing.
  virtual void plot_batch(const Batch& batch, const std::filesystem::path& path) const {}
  // Draws what the training split's labels hold into `path` (labels.jpg), where the task has such
  // a picture (detection: class counts, box shapes, centres and sizes).
  virtual void plot_labels(const std::filesystem::path& path) const {}
  // Called as each epoch's training starts, a resumed one included: a loss that changes over the
  // run (YOLO26's branch weights) takes its epoch here.
  virtual void begin_epoch(int64_t epoch) {}
  // The run's epochs as planned, before train_collate: `updates=` derives them from the batch
  // geometry, so they may differ from the recipe's `epochs` (detection's close_mosaic counts back from them).
  // time= calls it again after an epoch with the recomputed length; train_collate then follows it.
  virtual void set_planned_epochs(int64_t epochs) {}
};

}  // namespace trainer
