// Gradient accumulation through the real engine: batch 32 x 1 and batch 8 x 4 must end at the
// same weights (R7), the short last group is applied with its true size (R8), and a NaN loss
// stops the run with a clear error.
#include <catch2/catch.hpp>

#include "config/recipe.h"
#include "engine/eager_executor.h"
#include "engine/trainer.h"
#include "families/recipes.h"
#include "io/state_dict.h"
#include "optim/grad_clip.h"
#include "optim/param_groups.h"
#include "tasks/smoke_task.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;
using trainer::testing::max_relative_difference;

namespace {

std::vector<std::pair<std::string, torch::Tensor>> train_weights(int64_t samples, const std::vector<std::string>& overrides,
                                                                 int64_t* updates = nullptr) {
  std::vector<std::string> all{"device=cpu", "epochs=2", "workers=0", "warmup_updates=2", "grad_clip=10"};
  all.insert(all.end(), overrides.begin(), overrides.end());
  const Settings settings = load_settings(std::nullopt, all);
  SmokeTask task(samples, 7);
  Trainer trainer(settings, task);
  const TrainingSummary summary = trainer.fit();
  if (updates) *updates = summary.updates;
  return state_dict(task.model());
}

struct NanTask : SmokeTask {
  using SmokeTask::SmokeTask;
  LossOutput loss(const Batch& batch) override {
    LossOutput output = SmokeTask::loss(batch);
    output.total = output.total * std::numeric_limits<float>::quiet_NaN();
    return output;
  }
};

// A SmokeTask whose loss is infinite while `poisoned` is set, as an fp16 overflow makes it.
struct OverflowTask : SmokeTask {
  using SmokeTask::SmokeTask;
  bool poisoned = false;
  LossOutput loss(const Batch& batch) override {
    LossOutput output = SmokeTask::loss(batch);
    if (poisoned) output.total = output.total * std::numeric_limits<float>::infinity();
    return output;
  }
};

}  // namespace

TEST_CASE("batch 32 x 1 and batch 8 x 4 reach the same weights", "[engine][accumulation]") {
  const auto optimizer = GENERATE(as<std::string>{}, "sgd", "adamw");
  INFO(optimizer);
  const auto big = train_weights(160, {"batch=32", "accumulate=1", "optimizer=" + optimizer, "lr0=0.01"});
  const auto accumulated = train_weights(160, {"batch=8", "accumulate=4", "optimizer=" + optimizer, "lr0=0.01"});
  const auto initial = state_dict(SmokeTask(160, 7).model());
  CHECK(max_relative_difference(big, initial) > 1e-3);  // training moved the weights
  CHECK(max_relative_difference(big, accumulated) < 1e-5);
}

TEST_CASE("the short last group is applied with its true size", "[engine][accumulation]") {
  // 150 samples: batch 8 gives 19 micro-batches (the last holds 6): groups 4,4,4,4,3 = 32,32,32,32,22
  // samples, exactly the batches of 32 x 1.
  int64_t updates = 0;
  const auto big = train_weights(150, {"batch=32", "accumulate=1", "optimizer=sgd"});
  const auto accumulated = train_weights(150, {"batch=8", "accumulate=4", "optimizer=sgd"}, &updates);
  CHECK(updates == 10);
  CHECK(max_relative_difference(big, accumulated) < 1e-5);
}

TEST_CASE("a non-finite loss stops training with a clear error", "[engine][accumulation]") {
  const Settings settings = load_settings(std::nullopt, {"device=cpu", "epochs=1", "workers=0", "batch=8", "accumulate=2"});
  NanTask task(64, 1);
  Trainer trainer(settings, task);
  CHECK_THROWS_WITH(trainer.fit(), Catch::Contains("non-finite loss"));
}

TEST_CASE("an update matches unscale_, clip, step and zero_grad run as separate passes",
          "[engine][accumulation]") {
  const OptimizerKind kind = GENERATE(OptimizerKind::sgd, OptimizerKind::adamw);
  INFO(to_string(kind));
  constexpr double kClip = 0.5;  // small enough to clip every update
  constexpr int64_t kGroup = 16;
  FusedOptimizerOptions options;
  options.kind = kind;
  OverflowTask task(64, 5);
  SmokeTask reference(64, 5);  // same seed: same data and initial weights
  FusedOptimizer optimizer(make_param_groups(task.model(), 0.01, 0.05), options);
  FusedOptimizer reference_optimizer(make_param_groups(reference.model(), 0.01, 0.05), options);
  LossScaler scaler(true, torch::kCPU);
  LossScaler reference_scaler(true, torch::kCPU);
  StepConfig config;
  config.grad_clip = kClip;
  EagerExecutor executor(task, optimizer, scaler, nullptr, config);

  double norm_sum = 0;
  for (int update = 0; update < 4; ++update) {
    std::vector<size_t> indices;
    for (int64_t i = 0; i < kGroup; ++i) indices.push_back(static_cast<size_t>(update * kGroup + i));
    const Batch batch = task.batch_of(indices);
    // Update 2 overflows: skipped by both, and left out of the logged norm.
    task.poisoned = update == 2;
    executor.micro_step(batch, kGroup);
    executor.update();
    for (const auto& p : task.model().parameters()) {
      REQUIRE(p.grad().defined());
      CHECK(p.grad().abs().max().item<float>() == 0);
    }
    if (update == 2) continue;  // the reference never sees the bad batch; nothing changed
    torch::Tensor loss = reference.loss(batch).total / static_cast<double>(kGroup);
    reference_scaler.scale(loss).backward();
    std::vector<torch::Tensor> grads;
    for (const auto& p : reference.model().parameters()) grads.push_back(p.grad());
    const torch::Tensor found_inf = reference_scaler.unscale_(grads);
    norm_sum += clip_grad_norm_(grads, kClip).item<double>();
    reference_optimizer.step(found_inf);
    reference_scaler.update(found_inf);
    reference_optimizer.zero_grad();
  }
  const StepStats stats = executor.read_stats();
  CHECK(stats.updates == 4);
  CHECK(stats.skipped_updates == 1);
  CHECK(stats.grad_norm == Approx(norm_sum / 4).epsilon(1e-6));
  // The skip backed the scale off once; the reference never overflowed.
  CHECK(stats.loss_scale == reference_scaler.scale_value().item<double>() / 2);
  const auto ours = state_dict(task.model());
  const auto theirs = state_dict(reference.model());
  // The scale is a power of two, so folding 1/scale into the clip factor rounds the same.
  for (size_t i = 0; i < ours.size(); ++i) {
    INFO(ours[i].first);
    CHECK(torch::equal(ours[i].second, theirs[i].second));
  }
}
