// A task's evaluation part: the validator owns its meters (engine/meters.h), names its metrics and
// turns the meters into them. The engine resets the meters, has each rank validate its shard and
// sums the meters over the ranks before asking for the metrics.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <torch/nn/module.h>

#include "data/batch.h"
#include "data/loader.h"
#include "data/sampler.h"
#include "dist/collective.h"
#include "engine/meters.h"
#include "engine/metrics.h"

namespace trainer {

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

class Validator {
 public:
  virtual ~Validator() = default;
  virtual std::vector<std::string> metric_names() const = 0;
  // The meters a validation pass fills.
  virtual std::vector<Meter*> meters() = 0;
  // Evaluates the task's model as it is now (the engine swaps EMA weights in) in inference mode on
  // this shard of the validation batches, adding to meters(). A distributed run splits
  // validation among its ranks and sums the meters over them.
  virtual void validate_shard(const torch::Device& device, const Shard& shard) = 0;
  // The metrics of the meters as they stand.
  virtual Metrics metrics() const = 0;
  // One validation: the meters reset, this rank's shard of `shard.count` (all of it by default)
  // validated, the meters summed over `collective`'s ranks, the metrics.
  Metrics validate(const torch::Device& device, const Shard& shard = {}, Collective& collective = single_process());
};

}  // namespace trainer
