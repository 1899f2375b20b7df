// Stopping the real binary: SIGINT saves a resumable checkpoint and exits 130; kill -9 at random
// moments (also during a checkpoint write) always leaves a loadable last.pt; resuming either way
// ends with the same weights as the run that was never interrupted.
#include <catch2/catch.hpp>

#include <chrono>
#include <random>

#include "io/checkpoint.h"
#include "test_helpers.h"

using namespace trainer::testing;

namespace {

std::string recipe(const std::filesystem::path& dir, const std::string& name) {
  return "data=" + (dir / "data").string() + " epochs=3 batch=4 accumulate=3 imgsz=32 workers=2 threads=2 "
         "optimizer=sgd lr0=0.02 warmup_updates=4 plots=false exist_ok project=" + (dir / "runs").string() + " name=" + name;
}

// The binary run with `folder` as its working directory.
CommandResult trainer_in(const std::filesystem::path& folder, const std::string& arguments) {
  return run_command("cd '" + folder.string() + "' && " + TRAINER_BINARY + " " + arguments);
}

trainer::NamedTensors final_weights(const std::filesystem::path& dir, const std::string& name) {
  return trainer::load_checkpoint(dir / "runs" / name / "weights" / "last.pt").model;
}

}  // namespace

TEST_CASE("SIGINT and kill -9 followed by resume reproduce the uninterrupted run", "[cli][resume]") {
  TempDir dir("resume-cli");
  write_two_class_images(dir / "data", {60, 8, 32, 5, "a", "b"});
  const auto started = std::chrono::steady_clock::now();
  const CommandResult reference = run_trainer("train " + recipe(dir.path(), "reference") + " --quiet");
  const double reference_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  INFO(reference.output);
  REQUIRE(reference.exit_code == 0);
  const auto expected = final_weights(dir.path(), "reference");
  const std::string last = (dir / "runs" / "interrupted" / "weights" / "last.pt").string();

  SECTION("SIGINT") {
    // One SIGINT as soon as the first epoch's row is in results.csv (the header is written at the
    // start): the run is then training with two epochs to go, however loaded the machine, and the
    // resumed run must keep that row without repeating it. A timer cannot promise both: the run's
    // speed changes with the load from one minute to the next.
    const std::string results = (dir / "runs" / "interrupted" / "results.csv").string();
    const CommandResult stopped = run_command(
        "{ " + std::string(TRAINER_BINARY) + " train " + recipe(dir.path(), "interrupted") + " --quiet & pid=$!; " +
        "while [ \"$(cat '" + results + "' 2>/dev/null | wc -l)\" -lt 2 ] && kill -0 $pid 2>/dev/null; do sleep 0.05; done; " +
        "kill -INT $pid; wait $pid; }");
    INFO(stopped.output);
    REQUIRE(stopped.exit_code == 130);
    CHECK_THAT(stopped.output, Catch::Contains("resume="));
    const int64_t stopped_at = trainer::load_checkpoint(last).updates;
    CHECK(trainer::load_checkpoint(last).epoch < 3);  // the signal landed mid-run
    const CommandResult changed = run_trainer("train resume=" + last + " batch=8");
    CHECK(changed.exit_code == 2);
    CHECK_THAT(changed.output, Catch::Contains("batch (4 -> 8)"));
    // Ultralytics' spelling of resume=PATH.
    const CommandResult resumed = run_trainer("train resume model=" + last + " --quiet");
    INFO(resumed.output);
    REQUIRE(resumed.exit_code == 0);
    CHECK(trainer::identical(final_weights(dir.path(), "interrupted"), expected));
    CHECK(trainer::load_checkpoint(last).updates > stopped_at);  // the resumed run trained further
    const std::string csv = read_text(dir / "runs" / "interrupted" / "results.csv");
    CHECK(std::count(csv.begin(), csv.end(), '\n') == 4);  // header + 3 epochs, none repeated
  }

  SECTION("repeated kill -9") {
    // Kill points are spread over the run's own duration, so the test means the same on a fast
    // or a loaded machine; after three kills that left a checkpoint the run is left to finish. A
    // kill before the first save leaves nothing to resume, so it starts again and does not count:
    // on a loaded machine the start-up alone can outlast a short kill timer. A run that finished
    // (or saved its last epoch) before its timer was not interrupted: unless an earlier kill
    // landed, the run starts over with timers half as long, so a fast machine still gets its kills.
    std::mt19937 random(std::random_device{}());
    std::uniform_real_distribution<double> fraction(0.3, 0.9);
    const std::string fresh = "train " + recipe(dir.path(), "interrupted") + " save_interval=2 --quiet";
    std::string arguments = fresh;
    std::string kills;
    double timer_scale = 1;
    std::vector<int64_t> resumed_updates;  // where each landed kill left last.pt
    for (int attempt = 1; attempt <= 12 && resumed_updates.size() < 3; ++attempt) {
      const double seconds = timer_scale * fraction(random) * reference_seconds;
      const CommandResult run =
          run_command("timeout -s KILL " + std::to_string(seconds) + " " + std::string(TRAINER_BINARY) + " " + arguments);
      INFO(run.output);
      // For the assertions after the loop: the kill points are random, so a failure must name them.
      kills += "run " + std::to_string(attempt) + " (" + arguments + "): kill timer " + std::to_string(seconds) +
               " s (the reference took " + std::to_string(reference_seconds) + " s), exit " +
               std::to_string(run.exit_code) + "\n";
      REQUIRE((run.exit_code == 137 || run.exit_code == 0));
      if (!std::filesystem::exists(last)) continue;
      const trainer::Checkpoint saved = trainer::load_checkpoint(last);
      if (run.exit_code == 0 || saved.epoch == 3) {
        if (!resumed_updates.empty()) break;
        std::filesystem::remove_all(std::filesystem::path(last).parent_path().parent_path());
        arguments = fresh;
        timer_scale /= 2;
        continue;
      }
      arguments = "train resume=" + last + " --quiet";
      resumed_updates.push_back(saved.updates);
    }
    INFO(kills);
    REQUIRE(!resumed_updates.empty());  // at least one kill landed mid-run and was resumed from
    REQUIRE(std::filesystem::exists(last));
    if (trainer::load_checkpoint(last).epoch < 3) {  // loadable whatever moment the last kill hit
      const CommandResult finish = run_trainer(arguments);
      INFO(finish.output);
      REQUIRE(finish.exit_code == 0);
    }
    const trainer::Checkpoint finished = trainer::load_checkpoint(last);
    CHECK(finished.epoch == 3);
    for (const int64_t updates : resumed_updates) CHECK(finished.updates > updates);  // each resume trained on
    CHECK(trainer::identical(finished.model, expected));
  }
}

TEST_CASE("a full disk stops training with a clear error and leaves the saved checkpoint whole", "[cli][resume]") {
  TempDir dir("full-disk");
  write_two_class_images(dir / "data", {12, 4, 32, 5, "a", "b"});
  const std::string run = recipe(dir.path(), "full") + " epochs=1 val=false --quiet";
  REQUIRE(run_trainer("train " + run).exit_code == 0);
  const auto last = dir / "runs" / "full" / "weights" / "last.pt";
  const std::string saved = read_text(last);

  // The same run again into the same folder, with room for half a checkpoint. Ignoring SIGXFSZ
  // turns the limit into failing writes, as a full disk gives.
  const size_t blocks = saved.size() / 2 / 512;  // ulimit -f counts 512-byte blocks
  const CommandResult full = run_command("trap '' XFSZ; ulimit -f " + std::to_string(blocks) + "; " +
                                         std::string(TRAINER_BINARY) + " train " + run);
  INFO(full.output);
  CHECK(full.exit_code == 2);
  CHECK_THAT(full.output, Catch::Contains("cannot write checkpoint") && Catch::Contains("last.pt") &&
                              Catch::Contains("File too large"));
  CHECK(read_text(last) == saved);
  for (const auto& entry : std::filesystem::directory_iterator(last.parent_path())) {
    INFO(entry.path());
    CHECK(entry.path().filename().string().find(".tmp") == std::string::npos);
  }
}

TEST_CASE("a run started with relative paths resumes from inside its weights folder, as Ultralytics' docs do",
          "[cli][resume]") {
  TempDir dir("resume-elsewhere");
  write_two_class_images(dir / "images", {8, 4, 16, 5, "a", "b"});
  const CommandResult first = trainer_in(dir.path(),
                                         "train data=images epochs=1 batch=4 imgsz=16 workers=0 plots=false "
                                         "project=runs name=relative --quiet");
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  const auto resume_in = [](const std::filesystem::path& weights) {
    return trainer_in(weights, "train resume model=last.pt epochs=2 --quiet");
  };
  // A run folder moved elsewhere says nothing of where the run started: the error names the data.
  std::filesystem::rename(dir / "runs", dir / "moved");
  const CommandResult moved = resume_in(dir / "moved" / "relative" / "weights");
  INFO(moved.output);
  CHECK(moved.exit_code == 2);
  CHECK_THAT(moved.output, Catch::Contains("images"));
  std::filesystem::rename(dir / "moved", dir / "runs");
  // In place, `images` is not there from the weights folder: it is found from where the run started.
  const std::filesystem::path weights = dir / "runs" / "relative" / "weights";
  const CommandResult resumed = resume_in(weights);
  INFO(resumed.output);
  CHECK(resumed.exit_code == 0);
  CHECK(trainer::load_checkpoint(weights / "last.pt").epoch == 2);
}

TEST_CASE("a resumed run keeps data=fashion-mnist the Debian data set, even beside a folder of that name",
          "[cli][resume]") {
  TempDir dir("resume-named-data");
  std::filesystem::create_directories(dir / "fashion-mnist");  // no IDX files: opened as a folder, it fails
  const CommandResult first = trainer_in(dir.path(),
                                         "train data=fashion-mnist imgsz=16 fraction=0.002 epochs=1 batch=8 "
                                         "workers=0 plots=false project=runs name=named --quiet");
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  const std::filesystem::path weights = dir / "runs" / "named" / "weights";
  const CommandResult resumed = trainer_in(weights, "train resume model=last.pt epochs=2 --quiet");
  INFO(resumed.output);
  CHECK(resumed.exit_code == 0);
  CHECK(trainer::load_checkpoint(weights / "last.pt").epoch == 2);
}
