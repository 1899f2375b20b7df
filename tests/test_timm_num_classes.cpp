// timm's --num-classes N: the classifier head gets N outputs. N at the data's class count is the
// common case; more is allowed (the extra outputs are unused, with a warning); fewer stops the command.
#include <catch2/catch.hpp>

#include <filesystem>

#include "io/checkpoint.h"
#include "tasks/head_classes.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer::testing;

namespace {

// The output of `trainer ARGUMENTS`, which must exit with `exit_code`.
std::string output_of(const std::string& arguments, int exit_code) {
  const CommandResult result = run_trainer(arguments);
  INFO(arguments << "\n" << result.output);
  CHECK(result.exit_code == exit_code);
  return result.output;
}

}  // namespace

TEST_CASE("num_classes: the data's classes, padded with unused outputs, or an error when fewer",
          "[classify][timm]") {
  const std::vector<std::string> folders = {"cat", "dog"};
  CHECK(trainer::head_class_names("pets", folders, std::nullopt) == folders);
  CHECK(trainer::head_class_names("pets", folders, 2) == folders);
  CHECK(trainer::head_class_names("pets", folders, 4) ==
        std::vector<std::string>{"cat", "dog", "unused_2", "unused_3"});
  CHECK_THROWS_AS(trainer::head_class_names("pets", folders, 1), trainer::UserError);
  CHECK_THROWS_WITH(trainer::head_class_names("pets", folders, 1),
                    Catch::Contains("num_classes=1") && Catch::Contains("2 classes of data=pets"));
  // A saved head's names against the data's: padded alike, so they compare equal.
  CHECK(trainer::with_unused_classes(folders, 4) == trainer::head_class_names("pets", folders, 4));
  CHECK(trainer::with_unused_classes(folders, 1) == folders);
}

TEST_CASE("timm's --num-classes sizes the head through training, val and export", "[cli][timm]") {
  TempDir dir("timm-num-classes");
  write_two_class_images(dir / "data");
  const std::string data = " --data-dir " + dir.file("data");
  // resnet18's fc at N outputs: 512 x N + N parameters over the 11176512 before it.
  CHECK_THAT(output_of("plan" + data + " --model resnet18 --num-classes 2", 0),
             Catch::Contains("\nnum_classes: 2\n") && Catch::Contains("parameters             11177538 "));
  CHECK_THAT(output_of("plan" + data + " --model resnet18 --num-classes 1", 2),
             Catch::Contains("num_classes=1") && Catch::Contains("the 2 classes of data="));

  CHECK_THAT(output_of("train" + data + " --model resnet18 --num-classes 5 --epochs 1 -b 8 --img-size 16 -j 0 " +
                           "--output " + dir.file("runs") + " --experiment five",
                       0),
             Catch::Contains("the head has 5 outputs for the 2 classes"));
  const auto weights = dir / "runs" / "five" / "weights";
  const trainer::Checkpoint last = trainer::load_checkpoint(weights / "last.pt");
  CHECK_THAT(last.recipe, Catch::Contains("\nnum_classes: 5\n"));
  bool has_fc = false;
  for (const auto& [name, tensor] : last.model) {
    if (name != "fc.bias") continue;
    has_fc = true;
    CHECK(tensor.size(0) == 5);
  }
  CHECK(has_fc);
  REQUIRE(last.card);
  CHECK(last.card->labels.size() == 5);
  // The saved head validates on the data it was trained on, as the checkpoint and as ONNX.
  CHECK_THAT(output_of("val --weights " + (weights / "best.pt").string(), 0), Catch::Contains("top1"));
  output_of("export format=onnx model=" + (weights / "best.pt").string(), 0);
  REQUIRE(std::filesystem::exists(weights / "best.onnx"));
  CHECK_THAT(output_of("val model=" + (weights / "best.onnx").string(), 0), Catch::Contains("top1"));
}
