// compile=reduce-overhead (R1, R2): the training step as captured graphs, replayed with the
// launch overhead of one call. Whole-step capture when the task's loss is capture-safe: one
// graph per micro-batch shape (forward, loss ÷ group × loss scale, backward into the static
// gradients) and one for the update (norm, finite check, clip, step-or-skip with the learning
// rates and step counters on the device, loss-scale update, zeroing). A task whose loss is not
// capture-safe (OCR's CTC) runs its micro-steps eagerly and replays only the update graph.
// Every graph is first run for real once (its warm-up), then captured, then replayed with its
// inputs copied into static buffers. Outside the graphs: the gradient all-reduce and buffer
// broadcast of several ranks, and the EMA (two foreach launches whose decay ramp is a host
// count). Numbers match the eager executor's: tests replay the same work on the CPU.
#pragma once
#include <memory>
#include <set>
#include <vector>

#include "engine/captured_graph.h"
#include "engine/shape_registry.h"
#include "engine/step_core.h"

namespace trainer {

class GraphExecutor : public StepExecutor {
 public:
  GraphExecutor(Task& task, FusedOptimizer& optimizer, LossScaler& scaler, ModelEma* ema, StepConfig config,
                Collective& collective, GraphFactory make_graph);

  void micro_step(const Batch& batch, int64_t group_samples, bool padding = false) override;
  void update() override;
  StepStats read_stats() override { return core_.read_stats(); }
  ExecutionReport report() const override;
  int64_t gradient_all_reduces() const override { return core_.gradient_reducer().rounds(); }

 private:
  // A micro-batch shape's graph and the static tensors it reads.
  struct ShapeGraph {
    Batch inputs;
    std::unique_ptr<CapturedGraph> graph;
  };

  StepCore core_;
  GraphFactory make_graph_;
  bool whole_step_;
  ShapeRegistry shapes_;
  std::vector<std::unique_ptr<ShapeGraph>> graphs_;  // by registry slot; pointers stay put
  std::set<std::vector<int64_t>> eager_step_shapes_; // shapes met when micro-steps run eagerly
  std::unique_ptr<CapturedGraph> update_graph_;
};

}  // namespace trainer
