// Gradient accumulation through the real engine: batch 32 x 1 and batch 8 x 4 must end at the
// same weights (R7), the short last group is applied with its true size (R8), and a NaN loss
// stops the run with a clear error.
#include <catch2/catch.hpp>

#include "config/recipe.h"
#include "engine/trainer.h"
#include "io/state_dict.h"
#include "tasks/smoke_task.h"
#include "util/error.h"

using namespace trainer;

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

double max_relative_difference(const std::vector<std::pair<std::string, torch::Tensor>>& a,
                               const std::vector<std::pair<std::string, torch::Tensor>>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double scale = std::max(a[i].second.abs().max().item<double>(), 1e-12);
    worst = std::max(worst, (a[i].second - b[i].second).abs().max().item<double>() / scale);
  }
  return worst;
}

struct NanTask : SmokeTask {
  using SmokeTask::SmokeTask;
  LossOutput loss(const Batch& batch) override {
    LossOutput output = SmokeTask::loss(batch);
    output.total = output.total * std::numeric_limits<float>::quiet_NaN();
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
