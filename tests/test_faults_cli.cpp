// The fault table of docs/reliability.md, each row run against the real binary on tiny data: a
// damaged last.pt, two runs in one folder, images that go away mid-run, SIGTERM inside validation
// and inside a checkpoint write, a run folder that turns read-only, a full disk during export.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <functional>
#include <thread>

#include "io/checkpoint.h"
#include "test_helpers.h"
#include "test_skip.h"

using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

std::string recipe(const TempDir& dir, const std::string& name) {
  return "data=" + dir.file("data") +
         " batch=4 imgsz=16 workers=1 threads=1 optimizer=sgd lr0=0.02 "
         "warmup_updates=2 plots=false exist_ok project=" +
         dir.file("runs") + " name=" + name;
}

fs::path run_folder(const TempDir& dir, const std::string& name) { return dir / "runs" / name; }
fs::path last_of(const TempDir& dir, const std::string& name) { return run_folder(dir, name) / "weights" / "last.pt"; }

// Polls `condition` every 20 ms for up to `seconds`.
bool wait_until(const std::function<bool()>& condition, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

size_t lines_in(const fs::path& file) {
  const std::string text = fs::exists(file) ? read_text(file) : "";
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

// The files replace_file_atomically was writing when its process stopped.
std::vector<std::string> temporaries_in(const fs::path& folder) {
  std::vector<std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(folder)) {
    if (entry.path().filename().string().find(".tmp-") != std::string::npos) found.push_back(entry.path().string());
  }
  return found;
}

bool has_temporary(const fs::path& folder) {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    if (entry.path().filename().string().find(".tmp-") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("resume from a truncated or corrupted last.pt is refused, naming the file, before anything runs",
          "[faults][cli]") {
  TempDir dir("faults-resume");
  write_two_class_images(dir / "data", {8, 4, 16, 5, "a", "b"});
  const CommandResult first = run_trainer("train " + recipe(dir, "run") + " epochs=1 --quiet");
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  const fs::path last = last_of(dir, "run");
  const std::string saved = read_text(last);
  const std::string results = read_text(run_folder(dir, "run") / "results.csv");

  const std::string damage = GENERATE("cut in half", "cut to its first 100 bytes", "empty", "one byte flipped");
  INFO(damage);
  if (damage == "one byte flipped") {  // the middle of the file: inside the weights' storages
    std::string flipped = saved;
    flipped[flipped.size() / 2] ^= 0x01;
    write_text(last, flipped);
  } else {
    write_text(last, saved.substr(0, damage == "empty" ? 0 : damage == "cut in half" ? saved.size() / 2 : 100));
  }
  const std::string damaged = read_text(last);
  const CommandResult resumed = run_trainer("train resume=" + last.string() + " epochs=2");
  INFO(resumed.output);
  CHECK(resumed.exit_code == 2);
  CHECK_THAT(resumed.output, Catch::Contains("error: ") && Catch::Contains(last.string()));
  CHECK_THAT(resumed.output, !Catch::Contains("resuming at epoch") && !Catch::Contains("internal error"));
  if (damage == "one byte flipped") CHECK_THAT(resumed.output, Catch::Contains("fails its CRC-32 check"));
  // Nothing of the damaged file was used: the folder is as it was.
  CHECK(read_text(last) == damaged);
  CHECK(read_text(run_folder(dir, "run") / "results.csv") == results);

  // The same command resumes the file as saved: the refusal above came from the damage.
  write_text(last, saved);
  const CommandResult intact = run_trainer("train resume=" + last.string() + " epochs=2 --quiet");
  INFO(intact.output);
  CHECK(intact.exit_code == 0);
}

TEST_CASE("a second run in a busy run folder is refused, the lock goes with the run however it ends", "[faults][cli]") {
  TempDir dir("faults-lock");
  write_two_class_images(dir / "data", {8, 4, 16, 5, "a", "b"});
  // Never finishes by itself; last.pt after every update.
  BackgroundCommand busy(std::string(TRAINER_BINARY) + " train " + recipe(dir, "shared") +
                         " epochs=1000 save_interval=1 --quiet");
  REQUIRE(wait_until([&] { return fs::exists(last_of(dir, "shared")); }, 120));

  const CommandResult second = run_trainer("train " + recipe(dir, "shared") + " epochs=1 --quiet");
  INFO(second.output);
  CHECK(second.exit_code == 2);
  CHECK_THAT(second.output, Catch::Contains("another run is writing " + run_folder(dir, "shared").string()) &&
                                Catch::Contains("process " + std::to_string(busy.pid())));
  const CommandResult resume = run_trainer("train resume=" + last_of(dir, "shared").string() + " --quiet");
  INFO(resume.output);
  CHECK(resume.exit_code == 2);
  CHECK_THAT(resume.output, Catch::Contains("another run is writing"));
  // Without exist_ok the second run takes the next free name instead.
  const CommandResult numbered =
      run_trainer("train " + recipe(dir, "shared") + " exist_ok=false epochs=1 val=false --quiet");
  INFO(numbered.output);
  CHECK(numbered.exit_code == 0);
  CHECK(fs::exists(last_of(dir, "shared2")));

  // A holder killed outright leaves the lock file but not the lock.
  kill(busy.pid(), SIGKILL);
  REQUIRE(busy.wait_for(30) == 128 + SIGKILL);
  CHECK(fs::exists(run_folder(dir, "shared") / ".lock"));
  const CommandResult after_crash = run_trainer("train " + recipe(dir, "shared") + " epochs=1 val=false --quiet");
  INFO(after_crash.output);
  CHECK(after_crash.exit_code == 0);
  // And one that ended normally leaves it free too.
  const CommandResult after_exit = run_trainer("train " + recipe(dir, "shared") + " epochs=1 val=false --quiet");
  INFO(after_exit.output);
  CHECK(after_exit.exit_code == 0);
}

TEST_CASE("images deleted or truncated while training are skipped and counted, not a crash", "[faults][cli]") {
  TempDir dir("faults-images");
  write_two_class_images(dir / "data", {16, 4, 16, 5, "a", "b"});
  const fs::path deleted = dir / "data" / "train" / "a" / "3.png";
  const fs::path truncated = dir / "data" / "train" / "b" / "5.png";
  const fs::path deleted_val = dir / "data" / "val" / "b" / "1.png";
  const fs::path results = run_folder(dir, "run") / "results.csv";
  BackgroundCommand run(std::string(TRAINER_BINARY) + " train " + recipe(dir, "run") + " epochs=3 --quiet");
  // The header is written once the scan is done and training starts.
  REQUIRE(wait_until([&] { return lines_in(results) >= 1; }, 120));
  fs::remove(deleted);
  fs::remove(deleted_val);
  write_text(truncated, read_text(truncated).substr(0, 40));
  const std::optional<int> code = run.wait_for(300);
  const std::string output = run.output();
  INFO(output);
  REQUIRE(code);
  CHECK(*code == 0);
  CHECK(lines_in(results) == 4);
  for (const fs::path& file : {deleted, truncated, deleted_val}) {
    INFO(file);
    CHECK(count_lines(output, " image " + file.string()) == 1);  // warned once (cannot open or read), then skipped
  }
  CHECK_THAT(output, Catch::Contains("(2 unreadable so far)") && Catch::Contains("(1 unreadable so far)"));
  CHECK(trainer::load_checkpoint(last_of(dir, "run")).epoch == 3);
}

TEST_CASE("SIGTERM during validation stops at the epoch's checkpoint, exit 143, and resumes exactly", "[faults][cli]") {
  TempDir dir("faults-sigterm-val");
  // A validation split far larger than the training split keeps the run in validation long enough.
  write_two_class_images(dir / "data", {8, 150, 16, 5, "a", "b"});
  const std::string run = recipe(dir, "stopped") + " epochs=3 imgsz=32";
  const CommandResult reference = run_trainer("train " + recipe(dir, "reference") + " epochs=3 imgsz=32 --quiet");
  INFO(reference.output);
  REQUIRE(reference.exit_code == 0);

  BackgroundCommand stopped(std::string(TRAINER_BINARY) + " train " + run);
  REQUIRE(wait_until([&] { return stopped.output().find("validating epoch 1") != std::string::npos; }, 120));
  kill(stopped.pid(), SIGTERM);
  const std::optional<int> code = stopped.wait_for(120);
  INFO(stopped.output());
  REQUIRE(code);
  CHECK(*code == 143);
  CHECK_THAT(stopped.output(), Catch::Contains("resume=" + last_of(dir, "stopped").string()));
  // Stopped where the epoch ended, not an update into the next one.
  const trainer::Checkpoint saved = trainer::load_checkpoint(last_of(dir, "stopped"));
  CHECK(saved.epoch == 1);
  CHECK(saved.micro_batch == 0);
  CHECK(lines_in(run_folder(dir, "stopped") / "results.csv") == 2);

  const CommandResult resumed = run_trainer("train resume=" + last_of(dir, "stopped").string() + " --quiet");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK(trainer::identical(trainer::load_checkpoint(last_of(dir, "stopped")).model,
                           trainer::load_checkpoint(last_of(dir, "reference")).model));
  CHECK(lines_in(run_folder(dir, "stopped") / "results.csv") == 4);
}

TEST_CASE("SIGTERM inside a checkpoint write completes the write, exits 143 and resumes exactly", "[faults][cli]") {
  TempDir dir("faults-sigterm-write");
  write_two_class_images(dir / "data", {8, 4, 16, 5, "a", "b"});
  const CommandResult reference = run_trainer("train " + recipe(dir, "reference") + " epochs=2 --quiet");
  INFO(reference.output);
  REQUIRE(reference.exit_code == 0);

  // Each atomic write pauses 2 s between its temporary file and the rename (the test hook).
  const fs::path weights = last_of(dir, "stopped").parent_path();
  BackgroundCommand stopped("env TRAINER_WRITE_PAUSE_MS=2000 " + std::string(TRAINER_BINARY) + " train " +
                            recipe(dir, "stopped") + " epochs=2 save_interval=1 --quiet");
  REQUIRE(wait_until([&] { return has_temporary(weights); }, 120));
  kill(stopped.pid(), SIGTERM);
  const std::optional<int> code = stopped.wait_for(120);
  INFO(stopped.output());
  REQUIRE(code);
  CHECK(*code == 143);
  CHECK(temporaries_in(run_folder(dir, "stopped")).empty());
  const trainer::Checkpoint saved = trainer::load_checkpoint(last_of(dir, "stopped"));
  CHECK(saved.epoch < 2);

  const CommandResult resumed = run_trainer("train resume=" + last_of(dir, "stopped").string() + " --quiet");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK(trainer::identical(trainer::load_checkpoint(last_of(dir, "stopped")).model,
                           trainer::load_checkpoint(last_of(dir, "reference")).model));
}

TEST_CASE("a run folder made read-only mid-run stops the run with a clear error and nothing half-written",
          "[faults][cli]") {
  TempDir dir("faults-read-only");
  write_two_class_images(dir / "data", {8, 4, 16, 5, "a", "b"});
  const fs::path folder = run_folder(dir, "run");
  const std::string results = (folder / "results.csv").string();
  // The first epoch's row comes before its checkpoints: the folder turns read-only once both exist.
  const std::string last = (folder / "weights" / "last.pt").string();
  // Root writes through file modes, so as root the folder becomes a read-only bind mount in a
  // mount namespace of the run's own (unshare), which the kernel enforces for everyone.
  std::string make_read_only = "chmod -R a-w '" + folder.string() + "'";
  if (::geteuid() == 0) {
    if (run_command("unshare -m true").exit_code != 0) {
      skip_test("running as root, where chmod does not stop writes, and unshare -m is not permitted here");
    }
    make_read_only = "mount --bind '" + folder.string() + "' '" + folder.string() + "' && mount -o remount,bind,ro '" +
                     folder.string() + "' '" + folder.string() + "'";
  }
  const std::string script = std::string(TRAINER_BINARY) + " train " + recipe(dir, "run") +
                             " epochs=4 --quiet & pid=$!; while { [ ! -f '" + last + "' ] || [ \"$(cat '" + results +
                             "' 2>/dev/null | wc -l)\" -lt 2 ]; } && kill -0 $pid 2>/dev/null; do sleep 0.02; done; " +
                             make_read_only + " || exit 99; wait $pid";
  write_text(dir / "read_only.sh", script);
  const CommandResult run =
      run_command((::geteuid() == 0 ? "unshare -m --propagation private sh " : "sh ") + dir.file("read_only.sh"));
  run_command("chmod -R u+w '" + folder.string() + "'");
  INFO(run.output);
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Catch::Contains("error: ") && Catch::Contains(folder.string()) &&
                             (Catch::Contains("Read-only file system") || Catch::Contains("Permission denied")));
  // What was saved before is whole: the checkpoint loads and results.csv holds whole rows.
  const trainer::Checkpoint saved = trainer::load_checkpoint(folder / "weights" / "last.pt");
  CHECK(saved.epoch >= 1);
  const std::string csv = read_text(folder / "results.csv");
  CHECK((!csv.empty() && csv.back() == '\n'));
  const CommandResult resumed = run_trainer("train resume=" + (folder / "weights" / "last.pt").string() + " --quiet");
  INFO(resumed.output);
  CHECK(resumed.exit_code == 0);
  // A write caught by the remount could not remove its temporary; the resumed run did.
  CHECK(temporaries_in(folder).empty());
}

TEST_CASE("a full disk during export is a clear error and leaves no half-written file", "[faults][cli]") {
  TempDir dir("faults-export");
  write_two_class_images(dir / "data", {8, 4, 16, 5, "a", "b"});
  const CommandResult train = run_trainer("train " + recipe(dir, "run") + " epochs=1 --quiet");
  INFO(train.output);
  REQUIRE(train.exit_code == 0);
  const std::string last = last_of(dir, "run").string();
  const auto format = GENERATE(as<std::string>{}, "safetensors", "pt", "onnx");
  INFO(format);
  const fs::path output = dir / ("exported." + format);
  const std::string arguments = "export --weights " + last + " --format " + format + " -o " + output.string();
  // Room for 16 KiB per file: a fraction of any of the exported files.
  const CommandResult full =
      run_command("trap '' XFSZ; ulimit -f 32; " + std::string(TRAINER_BINARY) + " " + arguments);
  INFO(full.output);
  CHECK(full.exit_code == 2);
  CHECK_THAT(full.output,
             Catch::Contains("error: ") && Catch::Contains(output.string()) && Catch::Contains("File too large"));
  CHECK_FALSE(fs::exists(output));
  CHECK(temporaries_in(dir.path()).empty());
  // With room the same export succeeds: the failure above was the disk's.
  const CommandResult roomy = run_trainer(arguments);
  INFO(roomy.output);
  CHECK(roomy.exit_code == 0);
  CHECK(fs::exists(output));
}
