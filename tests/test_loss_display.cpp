// The losses shown (progress line, results.csv, plots) are Ultralytics' tloss: each micro-batch's
// per-batch mean loss items, averaged over the micro-batches, whatever the accumulation; on the
// same data and weights a classifier shows the same loss at batch 1 and 8.
#include <catch2/catch.hpp>

#include <algorithm>

#include "engine/eager_executor.h"
#include "optim/param_groups.h"
#include "run/results_csv.h"
#include "tasks/smoke_task.h"
#include "test_helpers.h"

using namespace trainer;
using namespace trainer::testing;

namespace {

// train/loss of the run's only results row.
double train_loss(const TempDir& dir, const std::string& name) {
  const ResultsTable table = read_results(dir / "runs" / name / "results.csv");
  const auto at = std::find(table.header.begin(), table.header.end(), "train/loss");
  REQUIRE(at != table.header.end());
  REQUIRE(table.rows.size() == 1);
  return table.rows.front().at(static_cast<size_t>(at - table.header.begin()));
}

}  // namespace

TEST_CASE("the shown loss averages the micro-batches' per-batch means, as Ultralytics' tloss",
          "[engine]") {
  SmokeTask task(8, 3);
  FusedOptimizerOptions options;
  FusedOptimizer optimizer(make_param_groups(task.model(), 0.0, 0.0), options);
  LossScaler scaler(false, torch::kCPU);
  EagerExecutor executor(task, optimizer, scaler, nullptr, StepConfig{});
  const Batch three = task.batch_of({0, 1, 2});
  const Batch one = task.batch_of({3});
  const double three_sum = task.loss(three).parts[0].item<double>();
  const double one_sum = task.loss(one).parts[0].item<double>();
  // One group of two micro-batches (accumulation): each counts once, the short one as much.
  executor.micro_step(three, 4);
  executor.micro_step(one, 4);
  executor.update();
  const StepStats stats = executor.read_stats();
  CHECK(stats.batches == 2);
  CHECK(stats.samples == 4);
  const double per_batch = (three_sum / 3 + one_sum) / 2;
  REQUIRE_FALSE(per_batch ==
                Approx((three_sum + one_sum) / 4).epsilon(1e-3));  // the two means differ here
  CHECK(stats.mean_losses().at(0) == Approx(per_batch).epsilon(1e-6));
}

TEST_CASE("a classifier shows the same loss at batch 1 and 8 and with accumulation",
          "[cli][engine]") {
  TempDir dir("loss-display");
  write_two_class_images(dir / "data", {8, 4, 16, 5, "a", "b"});
  // Weights that do not move (lr0=1e-9, no warmup) and BatchNorm with frozen statistics: every
  // sample's loss is the same in every run, so only how the runs average them can differ.
  const std::string common =
      "train data=" + dir.file("data") +
      " model=resnet18 epochs=1 imgsz=16 workers=1 norm=frozen_bn optimizer=sgd lr0=1e-9 "
      "warmup_epochs=0 val=false plots=false -q project=" +
      dir.file("runs");
  std::vector<double> losses;
  for (const char* geometry : {"batch=1 accumulate=1 name=b1", "batch=8 accumulate=1 name=b8",
                               "batch=2 accumulate=4 name=b2x4"}) {
    const CommandResult run = run_trainer(common + " " + geometry);
    INFO(geometry << "\n" << run.output);
    REQUIRE(run.exit_code == 0);
    losses.push_back(
        train_loss(dir, std::string(geometry).substr(std::string(geometry).rfind('=') + 1)));
  }
  INFO("batch 1: " << losses[0] << ", batch 8: " << losses[1]
                   << ", batch 2 x accumulate 4: " << losses[2]);
  CHECK(losses[0] > 0.1);
  CHECK(losses[1] == Approx(losses[0]).epsilon(1e-4));
  CHECK(losses[2] == Approx(losses[0]).epsilon(1e-4));
}
