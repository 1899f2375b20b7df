// Training length and validation counted in optimizer updates: updates=N derives the epochs and
// stops inside the last one, val_interval=N makes a results row (validated, weighed for best.pt
// and patience, with a resumable last.pt) every N updates and at the end, and a run stopped or
// killed anywhere in between resumes bit-identical.
#include <catch2/catch.hpp>

#include <algorithm>

#include "engine/trainer.h"
#include "engine/training_plan.h"
#include "families/recipes.h"
#include "io/checkpoint.h"
#include "io/state_dict.h"
#include "run/results_csv.h"
#include "tasks/smoke_task.h"
#include "test_helpers.h"

using namespace trainer;
using trainer::testing::CommandResult;
using trainer::testing::read_text;
using trainer::testing::run_command;
using trainer::testing::run_trainer;
using trainer::testing::TempDir;

namespace {

// 100 samples in micro-batches of 8: 13 per epoch, groups of 3,3,3,3,1, so 5 updates per epoch;
// 13 updates are 3 epochs, the last one of 3 updates. Rows at updates 4, 8, 12 and 13.
const std::vector<std::string> kRecipe{"device=cpu",   "workers=2",       "batch=8",
                                       "accumulate=3", "optimizer=adamw", "warmup_updates=3",
                                       "ema_tau=5",    "updates=13",      "val_interval=4"};
constexpr int64_t kSamples = 100;

struct Killed {};

// The results rows of a run; with kill_at > 0 the run dies at that row, after its last.pt (as a
// SIGKILL then would leave it).
class Rows : public TrainingObserver {
 public:
  explicit Rows(size_t kill_at = 0) : kill_at_(kill_at) {}
  void on_start(const TrainingPlan& plan, const std::vector<std::string>&, const std::vector<std::string>&) override {
    plan_ = plan;
  }
  void on_epoch_end(const EpochRecord& record) override {
    rows.push_back(record);
    if (rows.size() == kill_at_) throw Killed{};
  }
  std::vector<std::pair<int64_t, int64_t>> epochs_and_updates() const {
    std::vector<std::pair<int64_t, int64_t>> out;
    for (const auto& row : rows) out.emplace_back(row.epoch, row.updates);
    return out;
  }
  std::vector<EpochRecord> rows;
  TrainingPlan plan_;

 private:
  size_t kill_at_;
};

std::string plan_row(const TrainingPlan& plan, const std::string& name) {
  const auto rows = plan_rows(plan);
  const auto row = std::find_if(rows.begin(), rows.end(), [&](const auto& item) { return item.first == name; });
  return row == rows.end() ? "" : row->second;
}

std::vector<std::string> with(std::vector<std::string> recipe, const std::vector<std::string>& added) {
  recipe.insert(recipe.end(), added.begin(), added.end());
  return recipe;
}

NamedTensors uninterrupted_weights(Rows& rows, const std::vector<std::string>& recipe = kRecipe) {
  SmokeTask task(kSamples, 11);
  Trainer trainer(load_settings(std::nullopt, recipe), task);
  trainer.add_observer(rows);
  const TrainingSummary summary = trainer.fit();
  CHECK(summary.updates == 13);
  return state_dict(task.model());
}

// Resumes the run whose last.pt is in `folder` in a fresh task and trainer; its rows go to `rows`.
NamedTensors resumed_weights(const std::filesystem::path& folder, Rows& rows) {
  const Checkpoint checkpoint = load_checkpoint(folder / "weights" / "last.pt");
  SmokeTask task(kSamples, 11);
  Trainer trainer(load_settings(std::nullopt, kRecipe), task, folder);
  trainer.add_observer(rows);
  trainer.resume_from(checkpoint);
  trainer.fit();
  return state_dict(task.model());
}

}  // namespace

TEST_CASE("updates= derives the epochs, the last one partial", "[engine][plan][updates]") {
  const auto plan_of = [](const std::vector<std::string>& keys) {
    return make_plan(load_settings(std::nullopt, with({"device=cpu", "batch=8", "accumulate=3", "epochs=7"}, keys)),
                     100, 13, 4);
  };
  const TrainingPlan partial = plan_of({"updates=13"});
  CHECK(partial.updates_per_epoch == 5);
  CHECK(partial.epochs == 3);  // not the recipe's 7
  CHECK(partial.total_updates == 13);
  CHECK(partial.length_in_updates);
  CHECK(epoch_updates(partial, 0) == 5);
  CHECK(epoch_updates(partial, 1) == 5);
  CHECK(epoch_updates(partial, 2) == 3);
  CHECK(plan_row(partial, "epochs") == "3 (derived from updates=13; the last epoch runs 3 of its 5 updates)");
  CHECK(plan_row(partial, "total updates") == "13 (updates=)");
  CHECK(plan_row(partial, "validation") == "at every epoch end");
  CHECK(plan_of({"updates=10"}).epochs == 2);
  const TrainingPlan whole = plan_of({"updates=10", "val_interval=4"});
  CHECK(plan_row(whole, "epochs") == "2 (derived from updates=10)");
  CHECK(plan_row(whole, "validation") == "every 4 updates and at the end");
  CHECK(plan_of({"updates=1"}).epochs == 1);
  // Warmup in epochs is counted in the epoch's updates either way.
  CHECK(plan_of({"updates=13", "warmup_epochs=1"}).warmup_updates == 5);
  const TrainingPlan epochs = plan_of({});
  CHECK(epochs.epochs == 7);
  CHECK(epochs.total_updates == 35);
  CHECK_FALSE(epochs.length_in_updates);
  CHECK(epoch_updates(epochs, 6) == 5);
  CHECK(plan_row(epochs, "epochs") == "7");
}

TEST_CASE("updates= stops after N updates and val_interval makes a row every N and at the end", "[engine][updates]") {
  Rows rows;
  uninterrupted_weights(rows);
  CHECK(rows.plan_.total_updates == 13);
  CHECK(rows.epochs_and_updates() == std::vector<std::pair<int64_t, int64_t>>{{1, 4}, {2, 8}, {3, 12}, {3, 13}});
  for (const auto& row : rows.rows) {
    CHECK(row.metrics.size() == 1);  // validated
    CHECK(row.losses.size() == 1);
  }

  SECTION("val=false validates only the last row") {
    Rows unvalidated;
    uninterrupted_weights(unvalidated, with(kRecipe, {"val=false"}));
    REQUIRE(unvalidated.rows.size() == 4);
    CHECK(unvalidated.rows[2].metrics.empty());
    CHECK(unvalidated.rows[3].metrics.size() == 1);
  }
  SECTION("patience counts validations and stops inside an epoch") {
    // Steps too small to change a prediction: the second row cannot beat the first and spends
    // patience=1 at update 8, inside the second epoch.
    TempDir dir("patience-updates");
    std::filesystem::create_directories(dir.path() / "weights");
    SmokeTask task(kSamples, 11);
    Rows stopped;
    Trainer trainer(load_settings(std::nullopt, with(kRecipe, {"patience=1", "lr0=1e-12", "warmup_bias_lr=0"})), task,
                    dir.path());
    trainer.add_observer(stopped);
    const TrainingSummary summary = trainer.fit();
    CHECK(stopped.epochs_and_updates() == std::vector<std::pair<int64_t, int64_t>>{{1, 4}, {2, 8}});
    CHECK(summary.updates == 8);
    CHECK(summary.best_updates == 4);
    const Checkpoint last = load_checkpoint(dir.path() / "weights" / "last.pt");
    CHECK(last.updates == 8);
    CHECK(last.epoch == 1);
    CHECK(last.micro_batch == 9);  // three groups into the second epoch
  }
  SECTION("without val_interval the rows are the epoch ends, the last one partial") {
    Rows ends;
    std::vector<std::string> recipe = kRecipe;
    recipe.pop_back();
    uninterrupted_weights(ends, recipe);
    CHECK(ends.epochs_and_updates() == std::vector<std::pair<int64_t, int64_t>>{{1, 5}, {2, 10}, {3, 13}});
  }
}

TEST_CASE("an updates= run with val_interval stopped or killed anywhere resumes bit-identical",
          "[engine][resume][updates]") {
  Rows reference_rows;
  const NamedTensors reference = uninterrupted_weights(reference_rows);
  TempDir dir("resume-updates");
  std::filesystem::create_directories(dir.path() / "weights");

  SECTION("stopped: mid-group after a row, inside the second epoch and inside the partial last one") {
    const int64_t stop_after = GENERATE(14, 17, 31);
    INFO("stopped after micro-batch " << stop_after);
    {
      SmokeTask task(kSamples, 11);
      Trainer trainer(load_settings(std::nullopt, kRecipe), task, dir.path());
      int64_t micro_batches = 0;
      trainer.set_stop_check([&] { return ++micro_batches == stop_after; });
      CHECK_THROWS_AS(trainer.fit(), TrainingInterrupted);
    }
    Rows rows;
    CHECK(identical(resumed_weights(dir.path(), rows), reference));
    CHECK(rows.rows.back().updates == 13);
  }
  // A row is written before its checkpoints: killed at row k, the run resumes from the newest
  // last.pt before it (here the previous epoch's end) and writes row k again.
  SECTION("killed at a row: the newest last.pt before it resumes") {
    const size_t kill_at = GENERATE(2, 3);
    INFO("killed at row " << kill_at);
    {
      SmokeTask task(kSamples, 11);
      Rows dying(kill_at);
      Trainer trainer(load_settings(std::nullopt, kRecipe), task, dir.path());
      trainer.add_observer(dying);
      CHECK_THROWS_AS(trainer.fit(), Killed);
    }
    const Checkpoint saved = load_checkpoint(dir.path() / "weights" / "last.pt");
    CHECK(saved.updates == (kill_at == 2 ? 5 : 10));
    CHECK(saved.micro_batch == 0);
    Rows rows;
    CHECK(identical(resumed_weights(dir.path(), rows), reference));
    // The killed row and those after it, as the uninterrupted run made them.
    const auto all_rows = reference_rows.epochs_and_updates();
    const auto later = std::vector<std::pair<int64_t, int64_t>>(
        all_rows.begin() + static_cast<std::ptrdiff_t>(kill_at - 1), all_rows.end());
    CHECK(rows.epochs_and_updates() == later);
    CHECK(rows.rows.back().metrics == reference_rows.rows.back().metrics);
  }
}

TEST_CASE("updates= and val_interval= through the binary: plan, rows, kill -9 and resume", "[cli][updates]") {
  TempDir dir("updates-cli");
  // 24 training images in micro-batches of 4, one update each: 6 updates per epoch; 15 updates
  // are 3 epochs, the last one of 3 updates; rows at updates 4, 8, 12 (an epoch end) and 15.
  trainer::testing::write_two_class_images(dir / "data", {12, 4, 16, 5, "a", "b"});
  const auto recipe = [&](const std::string& name) {
    return "data=" + dir.file("data") +
           " updates=15 val_interval=4 epochs=50 batch=4 accumulate=1 imgsz=16 workers=2 threads=2 "
           "optimizer=sgd lr0=0.02 warmup_updates=2 plots=false exist_ok project=" +
           dir.file("runs") + " name=" + name;
  };
  const CommandResult plan = run_trainer("plan " + recipe("plan"));
  INFO(plan.output);
  REQUIRE(plan.exit_code == 0);
  CHECK_THAT(plan.output, Catch::Contains("3 (derived from updates=15; the last epoch runs 3 of its 6 updates)") &&
                              Catch::Contains("every 4 updates and at the end"));

  const CommandResult reference = run_trainer("train " + recipe("reference") + " --quiet");
  INFO(reference.output);
  REQUIRE(reference.exit_code == 0);
  CHECK_THAT(reference.output, Catch::Contains("finished 3 epochs (15 updates)"));
  const auto run = dir / "runs";  // project=P name=N: P/N, as Ultralytics
  const ResultsTable table = read_results(run / "reference" / "results.csv");
  const auto column = [&](const std::string& name) {
    return static_cast<size_t>(std::find(table.header.begin(), table.header.end(), name) - table.header.begin());
  };
  REQUIRE(table.rows.size() == 4);
  std::vector<std::pair<double, double>> rows;
  for (const auto& row : table.rows) rows.emplace_back(row.at(column("epoch")), row.at(column("updates")));
  CHECK(rows == std::vector<std::pair<double, double>>{{1, 4}, {2, 8}, {2, 12}, {3, 15}});
  for (const auto& row : table.rows) CHECK(row.at(column("top1")) >= 0);  // each one validated
  // The last epoch stopped after 3 of its 6 micro-batches: last.pt stands there.
  const Checkpoint finished = load_checkpoint(run / "reference" / "weights" / "last.pt");
  CHECK(finished.updates == 15);
  CHECK(finished.epoch == 2);
  CHECK(finished.micro_batch == 3);

  // kill -9 as soon as the first row and then its last.pt are written (the row comes first): last.pt
  // is a row's, inside an epoch or at its end.
  const std::string results = (run / "killed" / "results.csv").string();
  const std::string last = (run / "killed" / "weights" / "last.pt").string();
  const CommandResult killed = run_command(
      "{ " + std::string(TRAINER_BINARY) + " train " + recipe("killed") + " --quiet & pid=$!; " + "while { [ ! -f '" +
      last + "' ] || [ \"$(cat '" + results + "' 2>/dev/null | wc -l)\" -lt 2 ]; } && kill -0 $pid 2>/dev/null; do " +
      "sleep 0.02; done; kill -KILL $pid; wait $pid; }");
  INFO(killed.output);
  REQUIRE(killed.exit_code == 137);
  const int64_t saved_updates = load_checkpoint(last).updates;
  INFO("killed at update " << saved_updates);
  CHECK(saved_updates >= 4);
  REQUIRE(saved_updates < 15);
  const CommandResult finish = run_trainer("train resume=" + last + " --quiet");
  INFO(finish.output);
  REQUIRE(finish.exit_code == 0);
  CHECK(load_checkpoint(last).updates == 15);  // the resumed run trained on from the kill's update
  CHECK(identical(load_checkpoint(last).model, load_checkpoint(run / "reference" / "weights" / "last.pt").model));
  const ResultsTable resumed = read_results(run / "killed" / "results.csv");
  CHECK(resumed.rows.size() == 4);  // none repeated, none lost
  const CommandResult again = run_trainer("train resume=" + last);
  CHECK(again.exit_code == 2);
  CHECK_THAT(again.output, Catch::Contains("finished all 15 updates"));
}
