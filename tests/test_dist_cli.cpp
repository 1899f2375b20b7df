// Distributed training through the real binary (R17): `nproc=2` and torchrun reach the weights of
// one process with the doubled batch; a rank that dies or hangs makes the others fail within
// dist_timeout; a two-rank run stopped by SIGINT resumes exactly, and resumes with one rank; a rank
// killed inside a checkpoint write leaves a last.pt that resumes.
#include <catch2/catch.hpp>

#include <csignal>
#include <fstream>
#include <thread>

#include "io/checkpoint.h"
#include "test_helpers.h"

using namespace trainer::testing;

namespace {

using Clock = std::chrono::steady_clock;

// ResNet18 with GroupNorm (no batch statistics), threads=1 per rank. 40 images: batch 8 gives 5
// micro-batches, so rank 1 pads its third slot; batch 16 gives 16 + 16 + 8. Two updates per epoch.
// scale=0: the tolerance below holds for these inputs (6.8e-7 measured); with random resized crops
// of the 16-px noise squares it was 1.9e-5. The worst tensors are then GroupNorm biases within
// ~1e-3 of zero, where a few 1e-6 of float noise from another summation order is a large share.
std::string recipe(const TempDir& dir, const std::string& name) {
  return "data=" + dir.file("data") + " scale=0 imgsz=16 norm=gn accumulate=2 workers=1 threads=1 optimizer=sgd lr0=0.02 "
         "warmup_updates=1 plots=false exist_ok save_period=1 project=" + dir.file("runs") + " name=" + name;
}

std::filesystem::path weights(const TempDir& dir, const std::string& name, const std::string& file = "last.pt") {
  return dir / "runs" / name / "weights" / file;
}

// Float sums in another order (two ranks' partial gradients, then Gloo's sum) over 4 updates.
constexpr double kTolerance = 1e-5;

bool wait_for_file(const std::filesystem::path& path, double seconds) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  while (!std::filesystem::exists(path)) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// The child of `parent` whose environment holds `entry` (e.g. "RANK=1").
pid_t child_with(pid_t parent, const std::string& entry) {
  for (const auto& process : std::filesystem::directory_iterator("/proc")) {
    const std::string stat = read_text(process.path() / "stat");
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    std::string state;
    pid_t parent_pid = 0;
    fields >> state >> parent_pid;
    if (parent_pid != parent) continue;
    std::string environment = read_text(process.path() / "environ");
    std::replace(environment.begin(), environment.end(), '\0', '\n');
    if (("\n" + environment).find("\n" + entry + "\n") != std::string::npos) {
      return static_cast<pid_t>(std::stol(process.path().filename().string()));
    }
  }
  return -1;
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

TEST_CASE("nproc=2 and torchrun reach the weights of one process with the doubled batch", "[dist][cli]") {
  TempDir dir("dist-cli");
  write_two_class_images(dir / "data", {20, 6, 16, 5, "a", "b"});
  const CommandResult one = run_trainer("train " + recipe(dir, "one") + " epochs=2 batch=16 --quiet");
  INFO(one.output);
  REQUIRE(one.exit_code == 0);
  const CommandResult two = run_trainer("train " + recipe(dir, "two") + " epochs=2 batch=8 nproc=2 --quiet");
  INFO(two.output);
  REQUIRE(two.exit_code == 0);
  CHECK_THAT(two.output, Catch::Contains("distributed: 2 ranks; gradients all-reduced 4 times"));
  const trainer::Checkpoint reference = trainer::load_checkpoint(weights(dir, "one"));
  const trainer::Checkpoint distributed = trainer::load_checkpoint(weights(dir, "two"));
  CHECK(max_relative_difference(reference.model, distributed.model) < kTolerance);
  CHECK(max_relative_difference(reference.ema, distributed.ema) < kTolerance);
  // Rank 0 alone wrote the run folder: one results row per epoch, no second run folder.
  const std::string csv = read_text(dir / "runs" / "two" / "results.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 3);
  CHECK_FALSE(std::filesystem::exists(dir / "runs" / "two2"));

  // torchrun's static rendezvous: its agent hosts the store (TORCHELASTIC_USE_AGENT_STORE=True).
  // --redirects 1 --tee 1 only works around torch 1.13's launcher on Python 3.11, whose default
  // "0" parses to None (IntFlag iteration skips 0) and crashes it before any rank starts.
  const CommandResult torchrun = run_command(
      "/usr/bin/python3 -m torch.distributed.run --nproc_per_node 2 --no_python --redirects 1 --tee 1 --master_port " +
      std::to_string(free_port()) + " " + std::string(TRAINER_BINARY) + " train " + recipe(dir, "torchrun") +
      " epochs=2 batch=8 --quiet");
  INFO(torchrun.output);
  REQUIRE(torchrun.exit_code == 0);
  CHECK(trainer::identical(trainer::load_checkpoint(weights(dir, "torchrun")).model, distributed.model));
}

TEST_CASE("a rank that dies or hangs makes the others exit non-zero within dist_timeout", "[dist][cli]") {
  TempDir dir("dist-failure");
  write_two_class_images(dir / "data", {20, 6, 16, 5, "a", "b"});
  constexpr int kTimeoutSeconds = 5;
  // Long enough never to finish; last.pt after every update says training is under way.
  const std::string arguments = " train " + recipe(dir, "failing") + " epochs=1000 batch=8 save_interval=1 "
                                "dist_timeout=" + std::to_string(kTimeoutSeconds) + " --quiet";
  const std::filesystem::path started = weights(dir, "failing");

  SECTION("ranks started by hand: a killed rank and a stalled rank") {
    const int port = free_port();
    const auto rank = [&](int number) {
      return "env RANK=" + std::to_string(number) + " WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=" +
             std::to_string(port) + " " + std::string(TRAINER_BINARY) + arguments;
    };
    const bool stall = GENERATE(false, true);
    INFO((stall ? "rank 1 stopped (SIGSTOP)" : "rank 1 killed (SIGKILL)"));
    BackgroundCommand rank0(rank(0));
    BackgroundCommand rank1(rank(1));
    REQUIRE(wait_for_file(started, 120));
    kill(rank1.pid(), stall ? SIGSTOP : SIGKILL);
    const auto signalled = Clock::now();
    const std::optional<int> code = rank0.wait_for(kTimeoutSeconds + 20);
    const double seconds = seconds_since(signalled);
    INFO(rank0.output());
    REQUIRE(code);
    CHECK(*code == 2);
    CHECK(seconds < kTimeoutSeconds + 10);
    CHECK_THAT(rank0.output(), Catch::Contains("rank 0 of 2") && Catch::Contains("dist_timeout=5 s"));
  }

  SECTION("ranks started by nproc=2: the launcher stops the others and names the rank") {
    BackgroundCommand launcher(std::string(TRAINER_BINARY) + arguments + " nproc=2");
    REQUIRE(wait_for_file(started, 120));
    const pid_t rank1 = child_with(launcher.pid(), "RANK=1");
    REQUIRE(rank1 > 0);
    kill(rank1, SIGKILL);
    const std::optional<int> code = launcher.wait_for(kTimeoutSeconds + 20);
    INFO(launcher.output());
    REQUIRE(code);
    CHECK(*code == 128 + SIGKILL);
    CHECK_THAT(launcher.output(), Catch::Contains("rank 1 of 2") && Catch::Contains("killed by signal 9"));
  }
}

TEST_CASE("a two-rank run stopped by SIGINT resumes exactly, and its checkpoints resume with one rank",
          "[dist][cli]") {
  TempDir dir("dist-resume-cli");
  write_two_class_images(dir / "data", {20, 6, 16, 5, "a", "b"});
  const std::string two_ranks = recipe(dir, "reference") + " epochs=3 batch=8 nproc=2 save_interval=1 --quiet";
  const CommandResult reference = run_trainer("train " + two_ranks);
  INFO(reference.output);
  REQUIRE(reference.exit_code == 0);
  const auto expected = trainer::load_checkpoint(weights(dir, "reference")).model;

  SECTION("SIGINT to the launcher, resumed with two ranks") {
    BackgroundCommand run(std::string(TRAINER_BINARY) + " train " + recipe(dir, "stopped") +
                          " epochs=3 batch=8 nproc=2 save_interval=1 --quiet");
    REQUIRE(wait_for_file(weights(dir, "stopped"), 120));
    kill(run.pid(), SIGINT);
    const std::optional<int> code = run.wait_for(60);
    INFO(run.output());
    REQUIRE(code);
    REQUIRE(*code == 130);
    CHECK_THAT(run.output(), Catch::Contains("resume="));
    const trainer::Checkpoint stopped = trainer::load_checkpoint(weights(dir, "stopped"));
    CHECK(stopped.grads.empty());  // ranks stop together, between updates
    // The same checkpoint, mid-epoch, also continues with one rank.
    const std::filesystem::path copy = dir / "runs" / "single" / "weights" / "last.pt";
    std::filesystem::create_directories(copy.parent_path());
    std::filesystem::copy_file(weights(dir, "stopped"), copy);

    const CommandResult resumed = run_trainer("train resume=" + weights(dir, "stopped").string() + " --quiet");
    INFO(resumed.output);
    REQUIRE(resumed.exit_code == 0);
    CHECK(trainer::identical(trainer::load_checkpoint(weights(dir, "stopped")).model, expected));

    const CommandResult single = run_trainer("train resume=" + copy.string() + " nproc=1 --quiet");
    INFO(single.output);
    REQUIRE(single.exit_code == 0);
    CHECK(trainer::load_checkpoint(copy).epoch == 3);
  }

  SECTION("an epoch checkpoint of two ranks x 8 resumed by one rank x 16 continues the same training") {
    const std::filesystem::path copy = dir / "runs" / "single" / "weights" / "last.pt";
    std::filesystem::create_directories(copy.parent_path());
    std::filesystem::copy_file(weights(dir, "reference", "epoch1.pt"), copy);
    const CommandResult single =
        run_trainer("train resume=" + copy.string() + " nproc=1 batch=16 resume_force --quiet");
    INFO(single.output);
    REQUIRE(single.exit_code == 0);
    CHECK(max_relative_difference(trainer::load_checkpoint(copy).model, expected) < kTolerance);
  }
}

TEST_CASE("a rank killed inside a checkpoint write leaves a last.pt that loads and resumes", "[dist][cli][faults]") {
  const std::string victim = GENERATE("RANK=0", "RANK=1");
  INFO(victim << " killed while rank 0 writes last.pt");
  TempDir dir("dist-kill-write");
  write_two_class_images(dir / "data", {20, 6, 16, 5, "a", "b"});
  const std::filesystem::path last = weights(dir, "killed");
  // Every atomic write pauses 3 s between its temporary file and the rename (the test hook), so the
  // kill lands inside rank 0's write of last.pt after a first one is in place.
  BackgroundCommand launcher("env TRAINER_WRITE_PAUSE_MS=3000 " + std::string(TRAINER_BINARY) + " train " +
                             recipe(dir, "killed") + " epochs=3 batch=8 nproc=2 save_interval=1 --quiet");
  REQUIRE(wait_for_file(last, 180));
  const auto writing = [&] {
    for (const auto& entry : std::filesystem::directory_iterator(last.parent_path())) {
      if (entry.path().filename().string().rfind("last.pt.tmp-", 0) == 0) return true;
    }
    return false;
  };
  const auto deadline = Clock::now() + std::chrono::seconds(120);
  while (!writing() && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(writing());
  const pid_t rank = child_with(launcher.pid(), victim);
  REQUIRE(rank > 0);
  kill(rank, SIGKILL);
  const std::optional<int> code = launcher.wait_for(60);
  INFO(launcher.output());
  REQUIRE(code);
  CHECK(*code != 0);
  CHECK_THAT(launcher.output(), Catch::Contains("killed by signal 9"));
  const trainer::Checkpoint saved = trainer::load_checkpoint(last);  // the previous file, or the one completed
  CHECK(saved.epoch < 3);

  const CommandResult resumed = run_trainer("train resume=" + last.string() + " --quiet");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK(trainer::load_checkpoint(last).epoch == 3);
  for (const auto& entry : std::filesystem::directory_iterator(last.parent_path())) {
    INFO(entry.path());
    CHECK(entry.path().filename().string().find(".tmp-") == std::string::npos);  // the killed write's is gone
  }
}
