// The parts a task hands out (engine/task.h): training and validation always, prediction and
// deployment where the task has them, and a validator whose meters start afresh each validation.
#include <catch2/catch.hpp>

#include "families/recipes.h"
#include "tasks/smoke_task.h"
#include "tasks/task_factory.h"
#include "test_helpers.h"

using namespace trainer;
using trainer::testing::TempDir;

TEST_CASE("classification hands out all four parts", "[tasks][classify]") {
  TempDir dir("task-parts");
  trainer::testing::write_two_class_images(dir / "data");
  const Settings settings = load_settings(
      std::nullopt, {"data=" + (dir / "data").string(), "model=resnet18", "imgsz=16", "workers=0", "device=cpu"});
  const auto task = make_task(settings);
  CHECK(task->training().loss_names() == std::vector<std::string>{"loss"});
  CHECK(task->validator().metric_names() == std::vector<std::string>{"val/loss", "top1", "top5"});
  CHECK(task->predictor() != nullptr);
  REQUIRE(task->deployment() != nullptr);
  CHECK(task->deployment()->model_card().task == "classify");
  CHECK(task->deployment()->runtime() == "LibTorch");
}

TEST_CASE("the smoke task has no prediction or deployment, and validates afresh each time", "[tasks]") {
  SmokeTask task(32, 1);
  CHECK(task.predictor() == nullptr);
  CHECK(task.deployment() == nullptr);
  task.validator().validate(torch::kCPU);
  const Metrics metrics = task.validator().validate(torch::kCPU);
  REQUIRE(metrics.values.size() == 1);
  CHECK(metrics.values[0].first == "accuracy");
  // The second pass reset the meters before counting: the 256 held-out samples once, not twice.
  const std::vector<Meter*> meters = task.validator().meters();
  REQUIRE(meters.size() == 2);
  CHECK(meters[1]->pack() == std::vector<double>{256});
}
