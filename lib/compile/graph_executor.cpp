#include "compile/graph_executor.h"

#include <spdlog/spdlog.h>

#include <stdexcept>

namespace trainer {
namespace {

// Every shape the captured work depends on: input, targets and their lengths.
std::vector<int64_t> shape_key(const Batch& batch) {
  std::vector<int64_t> key;
  for (const torch::Tensor* tensor : {&batch.input, &batch.target, &batch.target_lengths}) {
    key.push_back(tensor->defined() ? tensor->dim() : -1);
    if (tensor->defined()) key.insert(key.end(), tensor->sizes().begin(), tensor->sizes().end());
  }
  return key;
}

Batch static_copy(const Batch& batch) {
  Batch copy = batch;
  copy.input = batch.input.clone();
  copy.target = batch.target.clone();
  if (batch.target_lengths.defined()) copy.target_lengths = batch.target_lengths.clone();
  return copy;
}

void refill(Batch& inputs, const Batch& batch) {
  inputs.input.copy_(batch.input);
  inputs.target.copy_(batch.target);
  if (inputs.target_lengths.defined()) inputs.target_lengths.copy_(batch.target_lengths);
}

}  // namespace

GraphExecutor::GraphExecutor(Task& task, FusedOptimizer& optimizer, LossScaler& scaler, ModelEma* ema,
                             StepConfig config, Collective& collective, GraphFactory make_graph)
    : core_(task, optimizer, scaler, ema, config, collective),
      make_graph_(std::move(make_graph)),
      whole_step_(task.training().loss_capture_safe()),
      shapes_(config.capture_limit, task.training().dynamic_input_dims(), config.micro_batch) {
  if (!whole_step_ && task.training().loss_split() == nullptr) {
    throw std::logic_error("task " + task.name() + ": a loss that is not capture-safe needs a loss_split()");
  }
}

void GraphExecutor::micro_step(const Batch& batch, int64_t group_samples, bool padding) {
  core_.prepare_micro_step(group_samples, padding, batch.size);
  // Graphs of the model alone depend on the input only; the eager loss reads the targets as they come.
  const ShapeRegistry::Lookup lookup =
      shapes_.lookup(batch.input.sizes(), whole_step_ ? shape_key(batch) : batch.input.sizes().vec());
  switch (lookup.action) {
    case ShapeRegistry::Action::eager:
      core_.micro_step(batch);
      return;
    case ShapeRegistry::Action::capture: {
      TORCH_INTERNAL_ASSERT(lookup.slot == graphs_.size(), "graph slots are handed out in order");
      auto& entry = *graphs_.emplace_back(std::make_unique<ShapeGraph>());
      entry.inputs = static_copy(batch);
      entry.graph = make_graph_();
      if (whole_step_) {
        capture_whole_step(entry);
      } else {
        capture_model(entry, batch);
      }
      return;
    }
    case ShapeRegistry::Action::replay: {
      ShapeGraph& entry = *graphs_[lookup.slot];
      if (whole_step_) {
        refill(entry.inputs, batch);
        entry.graph->replay();
      } else {
        replay_model(entry, batch);
      }
      return;
    }
  }
}

// The warm-up is this micro-batch's real work; the capture only records it for later ones.
void GraphExecutor::capture_whole_step(ShapeGraph& entry) {
  entry.graph->warm_up([&] { core_.micro_step(entry.inputs); });
  entry.graph->capture([this, &entry] { core_.micro_step(entry.inputs); });
}

// As make_graphed_callables does: this micro-batch's real work is the warm-ups (forward, the
// eager loss, backward); the captures only record the forward and the backward for later ones,
// with no replay in between, so nothing runs twice (BatchNorm's running statistics included).
void GraphExecutor::capture_model(ShapeGraph& entry, const Batch& batch) {
  torch::Tensor output;
  entry.graph->warm_up([&] { output = core_.model_output(entry.inputs); });
  entry.output_gradient = core_.output_gradient(output, batch);
  entry.backward = make_graph_();
  entry.backward->warm_up([&] { core_.backward_from_output(output, entry.output_gradient); });
  entry.graph->capture([this, &entry] { entry.output = core_.model_output(entry.inputs); });
  entry.backward->capture([this, &entry] {
    core_.backward_from_output(entry.output, entry.output_gradient);
    // Replays need only the output's storage. Its autograd graph would keep the parameters'
    // gradient accumulators, made on the capture stream, for the eager micro-steps too (PyTorch
    // warns of the stream mismatch), and the saved activations out of the pool the next
    // captures share: nothing runs between this shape's forward and backward replays but the
    // eager loss, which allocates outside that pool.
    entry.output = entry.output.detach();
  });
  // One log line per graph, so the log and graph_captures in the report count the same things.
  spdlog::info("graph capture of the backward for that shape (the loss runs eagerly between the two graphs)");
}

void GraphExecutor::replay_model(ShapeGraph& entry, const Batch& batch) {
  entry.inputs.input.copy_(batch.input);
  entry.graph->replay();
  entry.output_gradient.copy_(core_.output_gradient(entry.output, batch));
  entry.backward->replay();
}

void GraphExecutor::update() {
  core_.prepare_update();
  if (update_graph_) {
    update_graph_->replay();
  } else {
    // The parameters and their gradients keep their storage for the whole run, so one update
    // graph serves every shape.
    update_graph_ = make_graph_();
    update_graph_->warm_up([&] { core_.update(); });
    update_graph_->capture([this] { core_.update(); });
    spdlog::info("graph capture of the update step (one for the run)");
  }
}

ExecutionReport GraphExecutor::report() const {
  ExecutionReport report;
  report.executor = whole_step_ ? "CUDA graphs (micro-steps and update)"
                                : "CUDA graphs (model forward and backward, update); loss eager: the task's loss "
                                  "is not capture-safe";
  report.input_shapes = shapes_.shapes();
  // Two graphs per shape when the loss runs between them.
  report.graph_captures = shapes_.captures() * (whole_step_ ? 1 : 2) + (update_graph_ ? 1 : 0);
  report.eager_shapes = shapes_.eager_shapes();
  report.short_batch_shapes = shapes_.short_shapes();
  return report;
}

}  // namespace trainer
