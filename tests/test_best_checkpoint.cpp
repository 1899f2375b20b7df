// best.pt is what a run hands on, stripped as Ultralytics' strip_optimizer strips it: the EMA
// weights in fp16 and the recipe, no optimizer or loop state, so it is a fraction of last.pt; it
// still validates, and resuming or exporting model weights from it says what to use instead.
#include <catch2/catch.hpp>

#include <filesystem>

#include "io/checkpoint.h"
#include "test_helpers.h"

using namespace trainer::testing;

TEST_CASE("best.pt keeps the EMA weights in fp16 alone, last.pt everything to resume", "[cli]") {
  TempDir dir("best-checkpoint");
  write_two_class_images(dir / "data");
  const auto project = dir / "runs";
  const CommandResult train =
      run_trainer("train data=" + (dir / "data").string() +
                  " model=resnet18 epochs=1 batch=4 imgsz=16 workers=1 project=" + project.string() + " name=tiny -q");
  INFO(train.output);
  REQUIRE(train.exit_code == 0);
  const auto weights = project / "tiny" / "weights";
  const trainer::Checkpoint best = trainer::load_checkpoint(weights / "best.pt");
  const trainer::Checkpoint last = trainer::load_checkpoint(weights / "last.pt");
  CHECK(trainer::is_stripped(best));
  CHECK_FALSE(trainer::is_stripped(last));
  CHECK(best.model.empty());
  REQUIRE(best.ema.size() == last.ema.size());
  for (size_t i = 0; i < best.ema.size(); ++i) {
    INFO(best.ema[i].first);
    CHECK(best.ema[i].first == last.ema[i].first);
    const torch::Tensor& tensor = best.ema[i].second;
    CHECK(tensor.scalar_type() == (tensor.is_floating_point() ? torch::kHalf : last.ema[i].second.scalar_type()));
    CHECK(torch::equal(tensor, last.ema[i].second.to(tensor.scalar_type())));  // one epoch: best is last
  }
  CHECK(best.recipe == last.recipe);
  // fp16 EMA alone against fp32 model, EMA and SGD momentum: about an eighth.
  CHECK(std::filesystem::file_size(weights / "best.pt") * 5 < std::filesystem::file_size(weights / "last.pt"));

  const CommandResult val = run_trainer("val --weights " + (weights / "best.pt").string());
  INFO(val.output);
  CHECK(val.exit_code == 0);
  CHECK_THAT(val.output, Catch::Contains("top1"));
  const CommandResult resumed = run_trainer("train resume=" + (weights / "best.pt").string());
  INFO(resumed.output);
  CHECK(resumed.exit_code == 2);
  CHECK_THAT(resumed.output, Catch::Contains("holds the weights alone") && Catch::Contains("last.pt"));
  const CommandResult exported = run_trainer("export --weights " + (weights / "best.pt").string() + " --model-weights");
  CHECK(exported.exit_code == 2);
  CHECK_THAT(exported.output, Catch::Contains("no model weights besides its EMA weights"));
}
