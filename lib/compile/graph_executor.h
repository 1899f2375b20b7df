// compile=reduce-overhead (R1, R2): the training step as captured graphs, replayed with the
// launch overhead of one call. Whole-step capture when the task's loss is capture-safe: one
// graph per micro-batch shape (forward, loss ÷ group × loss scale, backward into the static
// gradients) and one for the update (norm, finite check, clip, step-or-skip with the learning
// rates and step counters on the device, loss-scale update, EMA with its decay on the device,
// zeroing). A task whose loss is not capture-safe (OCR's CTC) has its model graphed around an
// eagerly run loss, as PyTorch's make_graphed_callables does: per shape, one graph of the
// forward, then the loss and its gradient with respect to the output eagerly, then one graph of
// the backward from the output. Every graph is first run for real once (its warm-up), then
// captured, then replayed with its inputs copied into static buffers. Outside the graphs: the
// gradient all-reduce and buffer broadcast of several ranks. Numbers match the eager
// executor's: tests replay the same work on the CPU.
#pragma once
#include <memory>
#include <vector>

#include "compile/captured_graph.h"
#include "compile/shape_registry.h"
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
  // A micro-batch shape's graphs and the static tensors they read and write.
  struct ShapeGraph {
    Batch inputs;
    std::unique_ptr<CapturedGraph> graph;  // the whole micro-step, or the model's forward
    // With an eager loss: the forward graph's output, the loss's gradient with respect to it
    // (refilled before each backward replay) and the graph of the backward from it.
    torch::Tensor output;
    torch::Tensor output_gradient;
    std::unique_ptr<CapturedGraph> backward;
  };

  void capture_whole_step(ShapeGraph& entry);
  void capture_model(ShapeGraph& entry, const Batch& batch);
  void replay_model(ShapeGraph& entry, const Batch& batch);

  StepCore core_;
  GraphFactory make_graph_;
  bool whole_step_;
  ShapeRegistry shapes_;
  std::vector<std::unique_ptr<ShapeGraph>> graphs_;  // by registry slot; pointers stay put
  std::unique_ptr<CapturedGraph> update_graph_;
};

}  // namespace trainer
