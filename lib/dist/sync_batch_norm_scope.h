// What joins the SyncBatchNorm2d layers of a model (models/sync_batch_norm.h) to the ranks of a
// job: their statistics are summed over the job's collective while the scope lives.
#pragma once
#include <memory>

#include <torch/nn/module.h>

#include "dist/collective.h"
#include "models/sync_batch_norm.h"

namespace trainer {

// Points every SyncBatchNorm2d of a module at the collective while it lives (nothing to do in one
// process: there the layers are BatchNorm2d).
class SyncBatchNormScope {
 public:
  SyncBatchNormScope(torch::nn::Module& module, Collective& collective);
  ~SyncBatchNormScope();
  SyncBatchNormScope(const SyncBatchNormScope&) = delete;
  SyncBatchNormScope& operator=(const SyncBatchNormScope&) = delete;

 private:
  torch::nn::Module& module_;
  std::unique_ptr<RankSum> rank_sum_;
};

}  // namespace trainer
