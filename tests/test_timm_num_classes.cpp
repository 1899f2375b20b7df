// timm's --num-classes N: the classifier head gets N outputs. N at the data's class count is the
// common case; more is allowed (the extra outputs are unused, with a warning); fewer stops the command.
#include <catch2/catch.hpp>

#include <filesystem>

#include "io/checkpoint.h"
#include "tasks/head_classes.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer::testing;

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
  const CommandResult same = run_trainer("plan" + data + " --model resnet18 --num-classes 2");
  INFO(same.output);
  REQUIRE(same.exit_code == 0);
  CHECK_THAT(same.output, Catch::Contains("\nnum_classes: 2\n") && Catch::Contains("parameters             11177538 "));
  const CommandResult fewer = run_trainer("plan" + data + " --model resnet18 --num-classes 1");
  INFO(fewer.output);
  CHECK(fewer.exit_code == 2);
  CHECK_THAT(fewer.output, Catch::Contains("num_classes=1") && Catch::Contains("the 2 classes of data="));

  const CommandResult more =
      run_trainer("train" + data + " --model resnet18 --num-classes 5 --epochs 1 -b 8 --img-size 16 -j 0 --output " +
                  dir.file("runs") + " --experiment five");
  INFO(more.output);
  REQUIRE(more.exit_code == 0);
  CHECK_THAT(more.output, Catch::Contains("the head has 5 outputs for the 2 classes"));
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
  const CommandResult val = run_trainer("val --weights " + (weights / "best.pt").string());
  INFO(val.output);
  CHECK(val.exit_code == 0);
  CHECK_THAT(val.output, Catch::Contains("top1"));
  const CommandResult exported = run_trainer("export format=onnx model=" + (weights / "best.pt").string());
  INFO(exported.output);
  REQUIRE(exported.exit_code == 0);
  const CommandResult val_onnx = run_trainer("val model=" + (weights / "best.onnx").string());
  INFO(val_onnx.output);
  CHECK(val_onnx.exit_code == 0);
  CHECK_THAT(val_onnx.output, Catch::Contains("top1"));
}
