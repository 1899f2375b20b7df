// Ultralytics' `time`: a wall-clock budget in hours. After each epoch the run's epochs become the
// epochs the budget holds at the mean epoch time (the schedule, close_mosaic, args.yaml and last.pt
// follow), and the update that spends the budget ends the run, its epoch validated.
#include <catch2/catch.hpp>

#include <algorithm>
#include <regex>

#include "families/recipes.h"
#include "engine/time_budget.h"
#include "engine/trainer.h"
#include "engine/training_plan.h"
#include "io/checkpoint.h"
#include "run/results_csv.h"
#include "tasks/smoke_task.h"
#include "test_helpers.h"

using namespace trainer;
using trainer::testing::CommandResult;
using trainer::testing::read_text;
using trainer::testing::run_trainer;

namespace {

class Rows : public TrainingObserver {
 public:
  void on_epoch_end(const EpochRecord& record) override { rows.push_back(record); }
  std::vector<EpochRecord> rows;
};

// The `epochs:` line of a recipe as args.yaml and a checkpoint write it.
int64_t recipe_epochs(const std::string& recipe) {
  std::smatch match;
  REQUIRE(std::regex_search(recipe, match, std::regex("(^|\\n)epochs: (\\d+)")));
  return std::stoll(match[2]);
}

}  // namespace

TEST_CASE("time= recomputes the epochs from the mean epoch time, as Ultralytics does", "[engine][time]") {
  CHECK(budget_seconds(std::nullopt) == 0);
  CHECK(budget_seconds(0.0) == 0);
  CHECK(budget_seconds(0.5) == 1800);
  // ceil(3600 / (600 / 2)): twelve epochs of 300 s fit an hour.
  CHECK(epochs_in_budget(3600, 600, 2, 2) == 12);
  CHECK(epochs_in_budget(1000, 300, 1, 1) == 4);  // 3.33 rounds up, as math.ceil
  CHECK(epochs_in_budget(1000, 250, 1, 1) == 4);  // exactly four
  // Spent: the run ends with the epochs it has run.
  CHECK(epochs_in_budget(1000, 1000, 3, 3) == 3);
  CHECK(epochs_in_budget(1000, 1500, 3, 3) == 3);
  // A resumed run times its own epochs; fewer in the budget than done already ends it.
  CHECK(epochs_in_budget(3600, 600, 1, 10) == 10);
  CHECK(epochs_in_budget(3600, 600, 1, 4) == 6);

  const TrainingPlan plan =
      make_plan(load_settings(std::nullopt, {"device=cpu", "batch=8", "accumulate=3", "epochs=7"}), 100, 13, 4);
  REQUIRE(plan.updates_per_epoch == 5);
  const TrainingPlan longer = with_epochs(plan, 12);
  CHECK(longer.epochs == 12);
  CHECK(longer.total_updates == 60);
  CHECK(longer.shape_updates == 60);
  CHECK(longer.warmup_updates == plan.warmup_updates);
  CHECK(longer.lr == plan.lr);
  CHECK(epoch_updates(longer, 11) == 5);
  const ScheduleOptions schedule = schedule_options(load_settings(std::nullopt, {}).schedule, {}, longer);
  CHECK(schedule.total_updates == 60);
}

TEST_CASE("time= refuses a second length", "[config][time]") {
  CHECK_THROWS_WITH(load_settings(std::nullopt, {"time=1", "updates=10"}), Catch::Contains("'time' and 'updates'"));
  CHECK_THROWS_WITH(load_settings(std::nullopt, {"time=1", "cooldown_epochs=2"}), Catch::Contains("cooldown_epochs"));
  CHECK_FALSE(load_settings(std::nullopt, {"time=none"}).schedule.time);
  CHECK(*load_settings(std::nullopt, {"time=0.25"}).schedule.time == 0.25);
}

TEST_CASE("a spent budget ends the run after that update, its epoch validated", "[engine][time]") {
  // A budget of a few microseconds: the first update spends it, in the first of 13 micro-batches.
  SmokeTask task(100, 11);
  Rows rows;
  Trainer trainer(load_settings(std::nullopt, {"device=cpu", "workers=2", "batch=8", "accumulate=3", "epochs=50",
                                               "optimizer=adamw", "warmup_updates=3", "time=1e-9"}),
                  task);
  trainer.add_observer(rows);
  const TrainingSummary summary = trainer.fit();
  CHECK(summary.updates == 1);
  CHECK(summary.epochs_run == 1);
  REQUIRE(rows.rows.size() == 1);
  CHECK(rows.rows[0].updates == 1);
  CHECK(rows.rows[0].metrics.size() == 1);  // validated, as the last epoch is
}

TEST_CASE("time= through the binary: stops by the budget, args.yaml and last.pt hold the epochs", "[cli][time]") {
  trainer::testing::TempDir dir("time-cli");
  trainer::testing::write_two_class_images(dir / "data", {12, 4, 16, 5, "a", "b"});
  // 2 s of a recipe that asks for 500 epochs of 6 updates.
  const CommandResult run = run_trainer("train data=" + dir.file("data") +
                                        " time=0.00056 epochs=500 batch=4 accumulate=1 imgsz=16 workers=2 threads=2 "
                                        "optimizer=sgd lr0=0.02 warmup_updates=2 plots=false exist_ok project=" +
                                        dir.file("runs") + " name=timed");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Catch::Contains("the run's epochs are now") && Catch::Contains("is spent after update"));
  const auto folder = dir / "runs" / "timed";
  const ResultsTable table = read_results(folder / "results.csv");
  const auto rows = static_cast<int64_t>(table.rows.size());
  CHECK(rows >= 1);
  CHECK(rows < 500);
  // The run ended in its last row's epoch: that is the length args.yaml and last.pt record.
  const auto epoch_column = static_cast<size_t>(
      std::find(table.header.begin(), table.header.end(), "epoch") - table.header.begin());
  const auto last_epoch = static_cast<int64_t>(table.rows.back().at(epoch_column));
  CHECK(last_epoch == rows);
  CHECK(recipe_epochs(read_text(folder / "args.yaml")) == last_epoch);
  const Checkpoint last = load_checkpoint(folder / "weights" / "last.pt");
  CHECK(recipe_epochs(last.recipe) == last_epoch);
  CHECK(read_text(folder / "args.yaml").find("time: 0.00056") != std::string::npos);

  // Resumed, the run follows the length last.pt recorded, not the recipe's 500 epochs: inside the
  // epoch the budget stopped (or, stopped at its end, it has finished them all).
  const CommandResult resumed = run_trainer("train resume=" + (folder / "weights" / "last.pt").string());
  INFO(resumed.output);
  if (last.micro_batch == 0) {
    CHECK(resumed.exit_code == 2);
    CHECK_THAT(resumed.output, Catch::Contains("finished all " + std::to_string(last_epoch) + " epochs"));
  } else {
    CHECK(resumed.exit_code == 0);
    CHECK_THAT(resumed.output, Catch::Contains("training: " + std::to_string(last_epoch) + " epochs"));
  }
}
