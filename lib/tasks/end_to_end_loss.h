// YOLO26's end-to-end detection loss (Ultralytics 8.4 utils/loss.py E2ELoss): the v8 loss on the
// head's one-to-many branch (task-aligned top 10) and on its one-to-one branch (top 7, then the
// single best per object), summed with weights that move from the first branch to the second over
// the run: the one-to-many weight falls linearly from 0.8 at the first epoch to 0.1 at the last,
// the one-to-one weight is the rest. Ultralytics steps the weights at each epoch's end from a
// counter that a resume restarts; here they follow the epoch itself, so a resumed run continues
// with the weights it stopped at. Both branches use 8.4's small-target rule (box sides under the
// finest stride count as the next stride when choosing candidates). The logged parts are the
// one-to-one branch's, as Ultralytics logs them.
#pragma once
#include <cstdint>
#include <vector>

#include "tasks/detection_loss.h"

namespace trainer {

class EndToEndDetectionLoss {
 public:
  // `options` gives the gains; the assignment settings of each branch are 8.4's.
  EndToEndDetectionLoss(int64_t classes, std::vector<double> strides, int64_t reg_max,
                        DetectionLossOptions options, int64_t epochs);

  // levels: the one-to-many branch's outputs, then the one-to-one branch's (2 x strides).
  LossOutput operator()(const std::vector<torch::Tensor>& levels,
                        const torch::Tensor& targets) const;

  // The weights of `epoch` (0-based), written in place into the tensor the loss reads, so a
  // captured training step replays with them.
  void set_epoch(int64_t epoch);
  // The run's length changed (time=): set_epoch weighs by the new one.
  void set_epochs(int64_t epochs) { epochs_ = epochs; }
  // The one-to-many weight at `epoch` of `epochs`; the one-to-one weight is 1 minus it.
  static double one_to_many_weight(int64_t epoch, int64_t epochs);

 private:
  DetectionLoss one_to_many_, one_to_one_;
  int64_t epochs_;
  // 0-dim, moved once to the outputs' device by the first call (before any graph capture).
  mutable torch::Tensor one_to_many_weight_;
};

}  // namespace trainer
