// Exact resume: a run stopped anywhere (mid-epoch, mid-accumulation group) and resumed from its
// last.pt ends with weights bit-identical to the run that was never interrupted.
#include <catch2/catch.hpp>

#include <algorithm>

#include "engine/resume.h"
#include "engine/trainer.h"
#include "families/recipes.h"
#include "io/checkpoint.h"
#include "io/state_dict.h"
#include "tasks/smoke_task.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;
using trainer::testing::TempDir;

namespace {

const std::vector<std::string> kRecipe{"device=cpu", "epochs=3",  "workers=2",        "batch=8",
                                       "accumulate=3", "optimizer=adamw", "warmup_updates=3", "ema_tau=5"};
constexpr int64_t kSamples = 100;  // 13 micro-batches per epoch: groups of 3,3,3,3,1

// kRecipe with `changes` (key=value) replacing its own values of those keys or added.
std::vector<std::string> with(const std::vector<std::string>& changes) {
  std::vector<std::string> keys;
  const auto key_of = [](const std::string& item) { return item.substr(0, item.find('=')); };
  for (const auto& item : kRecipe) {
    const bool replaced = std::any_of(changes.begin(), changes.end(),
                                      [&](const std::string& change) { return key_of(change) == key_of(item); });
    if (!replaced) keys.push_back(item);
  }
  keys.insert(keys.end(), changes.begin(), changes.end());
  return keys;
}

NamedTensors uninterrupted_weights(const std::vector<std::string>& recipe = kRecipe) {
  SmokeTask task(kSamples, 11);
  Trainer trainer(load_settings(std::nullopt, recipe), task);
  trainer.fit();
  return state_dict(task.model());
}

// Stops at the stop_after-th poll of the stop check (after each micro-batch and at each epoch's
// end), then resumes from last.pt in a fresh task and trainer.
NamedTensors interrupted_weights(int64_t stop_after, const std::filesystem::path& folder,
                                 const std::vector<std::string>& recipe = kRecipe) {
  std::filesystem::create_directories(folder / "weights");
  {
    SmokeTask task(kSamples, 11);
    Trainer trainer(load_settings(std::nullopt, recipe), task, folder);
    int64_t micro_batches = 0;
    trainer.set_stop_check([&] { return ++micro_batches == stop_after; });
    CHECK_THROWS_AS(trainer.fit(), TrainingInterrupted);
  }
  const Checkpoint checkpoint = load_checkpoint(folder / "weights" / "last.pt");
  SmokeTask task(kSamples, 11);
  Trainer trainer(load_settings(std::nullopt, recipe), task, folder);
  trainer.resume_from(checkpoint);
  trainer.fit();
  return state_dict(task.model());
}

}  // namespace

TEST_CASE("a run stopped anywhere and resumed ends bit-identical", "[engine][resume]") {
  const NamedTensors reference = uninterrupted_weights();
  // mid-group, at a group boundary, the epoch's short last group, the epoch's end (the 14th poll)
  // and inside the second epoch
  const int64_t stop_after = GENERATE(1, 3, 13, 14, 17, 20);
  INFO("stopped at poll " << stop_after);
  TempDir dir("resume");
  CHECK(identical(interrupted_weights(stop_after, dir.path()), reference));
}

TEST_CASE("Adam, Adadelta and RMSpropTF runs stopped mid-group and mid-epoch resume bit-identical",
          "[engine][resume]") {
  const std::string optimizer = GENERATE("adam", "adadelta", "rmsproptf");
  const auto recipe = with({"optimizer=" + optimizer, optimizer == "adadelta" ? "lr0=1.0" : "lr0=0.002"});
  const NamedTensors reference = uninterrupted_weights(recipe);
  CHECK_FALSE(identical(reference, uninterrupted_weights()));  // the optimizer really is another one
  const int64_t stop_after = GENERATE(4, 17);
  INFO(optimizer << " stopped at poll " << stop_after);
  TempDir dir("resume-" + optimizer);
  CHECK(identical(interrupted_weights(stop_after, dir.path(), recipe), reference));
}

TEST_CASE("an interrupted checkpoint records its position and the unfinished gradients", "[engine][resume]") {
  TempDir dir("resume-position");
  std::filesystem::create_directories(dir.path() / "weights");
  SmokeTask task(kSamples, 11);
  Trainer trainer(load_settings(std::nullopt, kRecipe), task, dir.path());
  int64_t micro_batches = 0;
  // Polled after each micro-batch and once at the end of an epoch: the 18th poll follows micro-batch 17.
  trainer.set_stop_check([&] { return ++micro_batches == 18; });
  CHECK_THROWS_AS(trainer.fit(), TrainingInterrupted);
  const Checkpoint checkpoint = load_checkpoint(dir.path() / "weights" / "last.pt");
  CHECK(checkpoint.epoch == 1);
  CHECK(checkpoint.micro_batch == 4);  // 17 = 13 + 4: one micro-batch into the second group
  CHECK(checkpoint.updates == 6);
  CHECK_FALSE(checkpoint.grads.empty());
  CHECK_FALSE(checkpoint.rng.empty());
}

TEST_CASE("resume refuses recipe changes that break exactness", "[engine][resume]") {
  TempDir dir("resume-changes");
  std::filesystem::create_directories(dir.path() / "weights");
  {
    SmokeTask task(kSamples, 11);
    Trainer trainer(load_settings(std::nullopt, kRecipe), task, dir.path());
    int64_t micro_batches = 0;
    trainer.set_stop_check([&] { return ++micro_batches == 5; });
    CHECK_THROWS_AS(trainer.fit(), TrainingInterrupted);
  }
  const std::string last = (dir.path() / "weights" / "last.pt").string();
  const Settings command = load_settings(std::nullopt, {"resume=" + last});
  CHECK_NOTHROW(prepare_resume(command, {"resume=" + last, "epochs=5", "workers=0"}));
  CHECK(prepare_resume(command, {"resume=" + last, "epochs=5"}).settings.schedule.epochs == 5);
  CHECK_THROWS_WITH(prepare_resume(command, {"resume=" + last, "batch=16"}),
                    Catch::Contains("batch (8 -> 16)") && Catch::Contains("resume_force"));
  CHECK(prepare_resume(command, {"resume=" + last, "batch=16", "resume_force"}).settings.schedule.batch == 16);
  CHECK_THROWS_WITH(prepare_resume(load_settings(std::nullopt, {"resume=" + dir.file("none.pt")}), {}),
                    Catch::Contains("none.pt"));
}

TEST_CASE("resume=true picks the newest last.pt of the run name", "[engine][resume]") {
  TempDir dir("resume-latest");
  const auto project = dir.path() / "runs";
  for (const char* folder : {"train", "train2", "trainer-other"}) {
    std::filesystem::create_directories(project / folder / "weights");
    SmokeTask task(kSamples, 11);
    std::vector<std::string> recipe = kRecipe;
    recipe.push_back("epochs=1");
    Trainer trainer(load_settings(std::nullopt, recipe), task, project / folder);
    trainer.fit();
  }
  // Only train and train2 are runs of name "train"; train2 was written last.
  const std::vector<std::string> command{"resume", "task=classify", "project=" + project.string(),
                                         "epochs=2"};
  const ResumePoint point = prepare_resume(load_settings(std::nullopt, command), command);
  CHECK(point.checkpoint_path.parent_path().parent_path().filename() == "train2");
  CHECK(point.settings.schedule.epochs == 2);
  CHECK_THROWS_WITH(prepare_resume(load_settings(std::nullopt, {"resume", "name=missing", "project=" + project.string()}), {}),
                    Catch::Contains("no ") && Catch::Contains("missing*"));
}

TEST_CASE("a failed checkpoint write is a clear error and keeps the previous file", "[io][resume]") {
  TempDir dir("checkpoint-write");
  Checkpoint checkpoint;
  checkpoint.task = "smoke";
  checkpoint.model = state_dict(SmokeTask(8, 1).model());
  checkpoint.recipe = "epochs: 1\n";
  const auto path = dir.path() / "last.pt";
  save_checkpoint(path, checkpoint);
  const std::string before = trainer::testing::read_text(path);
  checkpoint.epoch = 5;
  {
    const trainer::testing::FileSizeLimit full_disk(before.size() / 2);
    CHECK_THROWS_WITH(save_checkpoint(path, checkpoint),
                      Catch::Contains("cannot write checkpoint") && Catch::Contains("last.pt"));
  }
  CHECK(trainer::testing::read_text(path) == before);
  CHECK(load_checkpoint(path).epoch == 0);
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) files += entry.is_regular_file();
  CHECK(files == 1);  // no temporary left behind
  CHECK_THROWS_WITH(save_checkpoint(dir.path() / "no-such-folder" / "last.pt", checkpoint),
                    Catch::Contains("no-such-folder"));
}
