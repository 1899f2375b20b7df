// Schedules count updates, warmup is in updates, and the plan keeps the short last group.
#include <catch2/catch.hpp>

#include "config/recipe.h"
#include "data/sampler.h"
#include "dist/epoch_shard.h"
#include "engine/training_plan.h"
#include "families/recipes.h"
#include "optim/schedule.h"

using namespace trainer;

TEST_CASE("schedule factors start at 1 and end at lrf", "[engine][schedule]") {
  for (auto kind : {SchedulerKind::linear, SchedulerKind::cosine, SchedulerKind::onecycle}) {
    CHECK(schedule_factor(kind, 0.1, 1.0) == Approx(0.1));
  }
  CHECK(schedule_factor(SchedulerKind::linear, 0.1, 0.0) == Approx(1.0));
  CHECK(schedule_factor(SchedulerKind::cosine, 0.1, 0.0) == Approx(1.0));
  CHECK(schedule_factor(SchedulerKind::cosine, 0.0, 0.5) == Approx(0.5));
  CHECK(schedule_factor(SchedulerKind::linear, 0.0, 0.25) == Approx(0.75));
  CHECK(schedule_factor(SchedulerKind::onecycle, 0.0, 0.0) == Approx(1.0 / 25.0));
  CHECK(schedule_factor(SchedulerKind::onecycle, 0.0, 0.3) == Approx(1.0));
  CHECK(schedule_factor(SchedulerKind::constant, 0.1, 0.7) == Approx(1.0));
}

TEST_CASE("warmup ramps over its updates, then the schedule takes over", "[engine][schedule]") {
  ScheduleOptions options;
  options.kind = SchedulerKind::constant;
  options.lr0 = 0.01;
  options.total_updates = 100;
  options.warmup_updates = 4;
  options.warmup_bias_lr = 0.1;
  options.momentum = 0.9;
  options.warmup_momentum = 0.5;
  const ScheduleValues first = schedule_at(options, 0);
  CHECK(first.lr == Approx(0.0025));
  CHECK(first.bias_lr == Approx(0.1 + (0.01 - 0.1) * 0.25));
  CHECK(first.momentum == Approx(0.6));
  const ScheduleValues last_warmup = schedule_at(options, 3);
  CHECK(last_warmup.lr == Approx(0.01));
  CHECK(last_warmup.bias_lr == Approx(0.01));
  CHECK(last_warmup.momentum == Approx(0.9));
  const ScheduleValues after = schedule_at(options, 50);
  CHECK(after.lr == Approx(0.01));
  CHECK(after.momentum == Approx(0.9));
}

TEST_CASE("the plan counts updates with a short last group", "[engine][plan]") {
  const Settings settings = load_settings(std::nullopt, {"batch=8", "accumulate=4", "epochs=3",
                                                          "warmup_epochs=1.5", "device=cpu", "optimizer=sgd"});
  const auto batches = make_batches(epoch_order(subset_indices(100, 1.0, 0), 0, 0, true), settings.schedule.batch, false);
  const TrainingPlan plan = make_plan(settings, 100, static_cast<int64_t>(batches.size()), 10);  // 4+4+4+1
  CHECK(plan.micro_batches_per_epoch == 13);
  CHECK(plan.updates_per_epoch == 4);
  CHECK(plan.total_updates == 12);
  CHECK(plan.warmup_updates == 6);
  CHECK(plan.effective_batch == 32);
  const EpochShard shard(batches, 0, plan.accumulate, {});
  CHECK(shard.updates() == plan.updates_per_epoch);
  CHECK(shard.group_end(3) - shard.group_end(2) == 1);
  CHECK(shard.group_samples(0) == 32);
  CHECK(shard.group_samples(3) == 4);  // the 13th holds the last 4
  CHECK(plan.weight_decay == Approx(5e-4 * 32 / 64));
}

TEST_CASE("accumulate=auto follows nbs and LR scaling follows the effective batch", "[engine][plan]") {
  const Settings automatic = load_settings(std::nullopt, {"batch=24", "nbs=64", "device=cpu", "optimizer=sgd"});
  CHECK(make_plan(automatic, 1000, 63, 10).accumulate == 3);
  const Settings big = load_settings(std::nullopt, {"batch=128", "device=cpu", "optimizer=sgd"});
  CHECK(make_plan(big, 1000, 63, 10).accumulate == 1);

  const auto lr_for = [](const std::string& rule) {
    return make_plan(load_settings(std::nullopt, {"batch=32", "accumulate=4", "lr0=0.01", "lr_base_batch=32",
                                                  "lr_scale=" + rule, "device=cpu", "optimizer=sgd"}),
                     1000, 32, 10).lr;
  };
  CHECK(lr_for("none") == Approx(0.01));
  CHECK(lr_for("linear") == Approx(0.04));
  CHECK(lr_for("sqrt") == Approx(0.02));
  CHECK(lr_for("1.5") == Approx(0.01 * 1.5 * 1.5));  // two doublings
}

TEST_CASE("amp resolves per device and fp16 on CPU is refused", "[engine][plan]") {
  CHECK_FALSE(make_plan(load_settings(std::nullopt, {"device=cpu"}), 10, 1, 10).amp_dtype.has_value());
  CHECK(make_plan(load_settings(std::nullopt, {"device=cpu", "amp=bf16"}), 10, 1, 10).amp_dtype == at::kBFloat16);
  CHECK_THROWS_WITH(make_plan(load_settings(std::nullopt, {"device=cpu", "amp=fp16"}), 10, 1, 10),
                    Catch::Contains("amp=fp16 needs a CUDA device"));
}

TEST_CASE("optimizer=auto picks AdamW with Ultralytics' LR for short runs and 8.4's MuSGD for long ones",
          "[engine][plan]") {
  const TrainingPlan plan = make_plan(load_settings(std::nullopt, {"device=cpu", "epochs=1"}), 1000, 63, 10);
  CHECK(plan.optimizer == OptimizerKind::adamw);
  CHECK(plan.lr == Approx(0.000714));
  // 10,001 updates: 8.4's MuSGD at 0.01 (8.3 chose SGD).
  const TrainingPlan long_run = make_plan(load_settings(std::nullopt, {"device=cpu", "updates=10001"}), 1000, 63, 10);
  CHECK(long_run.optimizer == OptimizerKind::musgd);
  CHECK(long_run.lr == Approx(0.01));
}
