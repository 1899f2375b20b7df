#include "engine/loop_state.h"

#include <algorithm>

#include "dist/epoch_shard.h"
#include "io/state_dict.h"
#include "util/error.h"

namespace trainer {
namespace {

torch::Tensor scalar(double value) { return torch::scalar_tensor(value, torch::kDouble); }

// keep_best's history as two rows: epochs and fitness, best first.
torch::Tensor kept_tensor(const std::vector<KeptCheckpoint>& kept) {
  std::vector<double> values;
  for (const KeptCheckpoint& checkpoint : kept) values.push_back(static_cast<double>(checkpoint.epoch));
  for (const KeptCheckpoint& checkpoint : kept) values.push_back(checkpoint.fitness);
  return torch::tensor(values, torch::kDouble).reshape({2, static_cast<int64_t>(kept.size())});
}

std::vector<KeptCheckpoint> kept_of_tensor(const torch::Tensor& tensor) {
  const torch::Tensor rows = tensor.to(torch::kDouble).contiguous();
  std::vector<KeptCheckpoint> kept;
  for (int64_t i = 0; i < rows.size(1); ++i)
    kept.push_back({static_cast<int64_t>(rows[0][i].item<double>()), rows[1][i].item<double>()});
  return kept;
}

}  // namespace

void EpochTotals::add(const StepStats& stats) {
  if (loss_sums.empty()) loss_sums.assign(stats.loss_sums.size(), 0.0);
  for (size_t i = 0; i < stats.loss_sums.size(); ++i) loss_sums[i] += stats.loss_sums[i];
  grad_norm_sum += stats.grad_norm * static_cast<double>(stats.updates);
  samples += stats.samples;
  batches += stats.batches;
  updates += stats.updates;
  skipped += stats.skipped_updates;
}

std::vector<double> EpochTotals::mean_losses() const {
  std::vector<double> means;
  for (double sum : loss_sums)
    means.push_back(sum / static_cast<double>(std::max<int64_t>(batches, 1)));
  return means;
}

double EpochTotals::mean_grad_norm() const {
  return grad_norm_sum / static_cast<double>(std::max<int64_t>(updates, 1));
}

void LoopState::start_next_epoch() {
  micro_batch = 0;
  anchor = 0;
}

NamedTensors progress_tensors(const LoopState& state, int64_t world_size) {
  const EpochTotals& t = state.totals;
  return {{"world_size", scalar(static_cast<double>(world_size))},
          {"epoch_anchor", scalar(static_cast<double>(state.anchor))},
          {"best_epoch", scalar(static_cast<double>(state.best_epoch))},
          {"best_updates", scalar(static_cast<double>(state.best_updates))},
          {"stale_epochs", scalar(static_cast<double>(state.stale_epochs))},
          {"epoch_samples", scalar(static_cast<double>(t.samples))},
          {"epoch_batches", scalar(static_cast<double>(t.batches))},
          {"epoch_updates", scalar(static_cast<double>(t.updates))},
          {"epoch_skipped", scalar(static_cast<double>(t.skipped))},
          {"epoch_grad_norm_sum", scalar(t.grad_norm_sum)},
          {"epoch_loss_sums", torch::tensor(t.loss_sums, torch::kDouble)},
          {"kept_checkpoints", kept_tensor(state.kept)}};
}

LoopState restore_loop_state(const Checkpoint& checkpoint, const WorldLayout& world) {
  const auto progress = to_map(checkpoint.progress);
  const auto value = [&](const std::string& key) {
    const auto found = progress.find(key);
    if (found == progress.end()) throw UserError("checkpoint progress has no '" + key + "'; cannot resume");
    return found->second;
  };
  // Checkpoints from before distributed training are one-process runs.
  const auto value_or = [&](const std::string& key, double fallback) {
    const auto found = progress.find(key);
    return found == progress.end() ? fallback : found->second.item<double>();
  };
  LoopState state;
  state.epoch = checkpoint.epoch;
  const ShardStart start =
      resume_start(checkpoint.micro_batch, static_cast<int64_t>(value_or("epoch_anchor", 0)),
                   static_cast<int64_t>(value_or("world_size", 1)), world.world_size, !checkpoint.grads.empty());
  state.anchor = start.anchor;
  state.micro_batch = start.slot;
  state.updates = checkpoint.updates;
  state.best_fitness = checkpoint.best_fitness;
  state.best_epoch = static_cast<int64_t>(value("best_epoch").item<double>());
  state.best_updates = static_cast<int64_t>(value_or("best_updates", 0));
  state.stale_epochs = static_cast<int64_t>(value("stale_epochs").item<double>());
  state.totals.samples = static_cast<int64_t>(value("epoch_samples").item<double>());
  // Checkpoints from before per-batch means summed the losses per sample: their samples count them.
  state.totals.batches =
      static_cast<int64_t>(value_or("epoch_batches", static_cast<double>(state.totals.samples)));
  state.totals.updates = static_cast<int64_t>(value("epoch_updates").item<double>());
  state.totals.skipped = static_cast<int64_t>(value("epoch_skipped").item<double>());
  state.totals.grad_norm_sum = value("epoch_grad_norm_sum").item<double>();
  const torch::Tensor sums = value("epoch_loss_sums").to(torch::kDouble).contiguous();
  state.totals.loss_sums.assign(sums.data_ptr<double>(), sums.data_ptr<double>() + sums.numel());
  // Checkpoints from before keep_best kept none.
  if (const auto kept = progress.find("kept_checkpoints"); kept != progress.end())
    state.kept = kept_of_tensor(kept->second);
  return state;
}

NamedTensors accumulated_gradients(torch::nn::Module& model) {
  NamedTensors grads;
  for (const auto& item : model.named_parameters()) {
    if (item.value().grad().defined()) grads.emplace_back(item.key(), item.value().grad().detach().clone());
  }
  return grads;
}

void restore_gradients(torch::nn::Module& model, const NamedTensors& grads) {
  const auto by_name = to_map(grads);
  torch::NoGradGuard no_grad;
  for (const auto& item : model.named_parameters()) {
    const auto found = by_name.find(item.key());
    if (found == by_name.end()) continue;
    torch::Tensor& grad = item.value().mutable_grad();
    if (grad.defined()) {
      grad.copy_(found->second);
    } else {
      // In the parameter's layout (channels-last or not), as backward would have made it.
      grad = torch::empty_like(item.value());
      grad.copy_(found->second);
    }
  }
}

}  // namespace trainer
