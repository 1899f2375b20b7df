// keep_best (timm's --checkpoint-hist): the epoch checkpoints of the N best validations are kept,
// a better one displacing the worst, as timm's CheckpointSaver does; best.pt and last.pt stay.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

#include "engine/best_checkpoints.h"
#include "engine/loop_state.h"
#include "run/results_csv.h"
#include "test_helpers.h"

using namespace trainer::testing;

namespace {

std::vector<int64_t> epochs_of(const std::vector<trainer::KeptCheckpoint>& kept) {
  std::vector<int64_t> epochs;
  for (const auto& checkpoint : kept) epochs.push_back(checkpoint.epoch);
  return epochs;
}

}  // namespace

TEST_CASE("keep_best admits while there is room, then only what beats the worst", "[engine][timm]") {
  std::vector<trainer::KeptCheckpoint> kept;
  CHECK(trainer::admit_checkpoint(kept, 2, {1, 0.5}).save);
  CHECK(trainer::admit_checkpoint(kept, 2, {2, 0.7}).save);
  CHECK(epochs_of(kept) == std::vector<int64_t>{2, 1});
  const trainer::HistoryChange third = trainer::admit_checkpoint(kept, 2, {3, 0.6});
  CHECK(third.save);
  CHECK(third.removed == std::vector<int64_t>{1});
  CHECK(trainer::admit_checkpoint(kept, 2, {4, 0.9}).removed == std::vector<int64_t>{3});
  const trainer::HistoryChange worse = trainer::admit_checkpoint(kept, 2, {5, 0.6});
  CHECK_FALSE(worse.save);
  CHECK(worse.removed.empty());
  CHECK(epochs_of(kept) == std::vector<int64_t>{4, 2});
  // Equal to the worst is not better (timm compares with >); among equals the newer ranks first.
  std::vector<trainer::KeptCheckpoint> ties;
  trainer::admit_checkpoint(ties, 2, {1, 0.5});
  trainer::admit_checkpoint(ties, 2, {2, 0.5});
  CHECK_FALSE(trainer::admit_checkpoint(ties, 2, {3, 0.5}).save);
  CHECK(epochs_of(ties) == std::vector<int64_t>{2, 1});
  // Resumed with keep_best=1: the worse of the two goes even when the new epoch is not kept.
  const trainer::HistoryChange shrunk = trainer::admit_checkpoint(ties, 1, {3, 0.25});
  CHECK_FALSE(shrunk.save);
  CHECK(shrunk.removed == std::vector<int64_t>{1});
  CHECK(epochs_of(ties) == std::vector<int64_t>{2});
  std::vector<trainer::KeptCheckpoint> none;
  CHECK_FALSE(trainer::admit_checkpoint(none, 0, {1, 1.0}).save);
  CHECK(none.empty());
}

TEST_CASE("keep_best's history travels in last.pt's progress, so a resumed run ranks on", "[engine][timm]") {
  trainer::LoopState state;
  state.kept = {{4, 0.875}, {2, 0.5}};
  trainer::Checkpoint checkpoint;
  checkpoint.epoch = 4;
  checkpoint.progress = trainer::progress_tensors(state, 1);
  const trainer::LoopState resumed = trainer::restore_loop_state(checkpoint, trainer::WorldLayout{});
  REQUIRE(resumed.kept.size() == 2);
  CHECK(epochs_of(resumed.kept) == std::vector<int64_t>{4, 2});
  CHECK(resumed.kept[0].fitness == 0.875);
  CHECK(resumed.kept[1].fitness == 0.5);
  // A checkpoint written before keep_best has no history: nothing is kept yet.
  checkpoint.progress.pop_back();
  CHECK(trainer::restore_loop_state(checkpoint, trainer::WorldLayout{}).kept.empty());
}

TEST_CASE("keep_best keeps the best epochs' checkpoints of a run: off in Ultralytics' form and 10 in timm's",
          "[cli][timm]") {
  TempDir dir("keep-best");
  write_two_class_images(dir / "data");
  const auto project = dir / "runs";
  const CommandResult train =
      run_trainer("train data=" + dir.file("data") + " model=resnet18 epochs=5 batch=4 imgsz=16 workers=0 "
                  "optimizer=sgd lr0=0.05 keep_best=2 plots=false project=" + project.string() + " name=kept");
  INFO(train.output);
  REQUIRE(train.exit_code == 0);
  const auto weights = project / "kept" / "weights";
  CHECK(std::filesystem::exists(weights / "best.pt"));
  CHECK(std::filesystem::exists(weights / "last.pt"));
  const trainer::ResultsTable results = trainer::read_results(project / "kept" / "results.csv");
  REQUIRE(results.rows.size() == 5);
  const auto top1 = std::find(results.header.begin(), results.header.end(), "top1") - results.header.begin();
  std::set<int64_t> kept;
  for (int64_t epoch = 1; epoch <= 5; ++epoch) {
    if (std::filesystem::exists(weights / ("checkpoint-" + std::to_string(epoch) + ".pt"))) kept.insert(epoch);
  }
  INFO(read_text(project / "kept" / "results.csv"));
  REQUIRE(kept.size() == 2);
  // Fitness is top-1 here: every kept epoch is at least as good as every other.
  for (int64_t epoch = 1; epoch <= 5; ++epoch) {
    if (kept.count(epoch)) continue;
    for (const int64_t good : kept)
      CHECK(results.rows[static_cast<size_t>(good - 1)][static_cast<size_t>(top1)] >=
            results.rows[static_cast<size_t>(epoch - 1)][static_cast<size_t>(top1)]);
  }
  CHECK_THAT(run_trainer("plan data=" + dir.file("data")).output, Catch::Contains("\nkeep_best: 0\n"));
  const CommandResult timm = run_trainer("plan --model resnet18 " + dir.file("data"));
  CHECK_THAT(timm.output, Catch::Contains("\nkeep_best: 10\n"));
  CHECK_THAT(run_trainer("plan --model resnet18 --checkpoint-hist 3 " + dir.file("data")).output,
             Catch::Contains("\nkeep_best: 3\n"));
}
