// Checkpoints that travel: best.pt and last.pt carry what inference needs beside the recipe (the
// card: class names, channels, normalisation), so a copy predicts and exports on a machine that
// never saw the training data, and validates on another data set with the same classes; a data
// set with other classes is a clear error, and a checkpoint from before cards still reads its
// class names from the data.
#include <catch2/catch.hpp>

#include <filesystem>

#include "io/checkpoint.h"
#include "io/tensor_archive.h"
#include "test_helpers.h"

using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

// The data folder moved away, as on a machine that only got the weights.
void move_away(const fs::path& data) { fs::rename(data, fs::path(data.string() + "-elsewhere")); }

}  // namespace

TEST_CASE("a classify best.pt predicts without its data and validates on another set", "[cli][checkpoint]") {
  TempDir dir("travel-classify");
  write_two_class_images(dir / "data");
  const auto project = dir / "runs";
  const CommandResult train = run_trainer("train data=" + dir.file("data") +
                                          " model=resnet18 epochs=1 batch=4 imgsz=16 "
                                          "workers=1 project=" +
                                          project.string() + " name=tiny -q");
  INFO(train.output);
  REQUIRE(train.exit_code == 0);
  const auto weights = project / "tiny" / "weights";
  const trainer::Checkpoint best = trainer::load_checkpoint(weights / "best.pt");
  REQUIRE(best.card);
  CHECK(best.card->labels == std::vector<std::string>{"bright", "dark"});
  CHECK(best.card->channels == 3);
  CHECK(best.card->height == 16);
  CHECK(best.card->normalization.mean == std::vector<double>{0.485, 0.456, 0.406});
  CHECK(best.card->recipe == best.recipe);
  CHECK(trainer::load_checkpoint(weights / "last.pt").card->labels == best.card->labels);
  // Python reads the card with weights_only=True, as the rest of the file.
  run_python("archive_fixture.py",
             "echo " + quoted((weights / "best.pt").string()) + " " + quoted(dir.file("echo.pt")));
  const auto echoed = trainer::read_archive(dir.file("echo.pt")).toGenericDict().at("card").toGenericDict();
  CHECK(echoed.at("labels").toListRef().at(1).toStringRef() == "dark");

  // A checkpoint written before cards: the same file without one.
  trainer::Checkpoint old = best;
  old.card.reset();
  trainer::save_checkpoint(dir / "old.pt", old);
  const std::string dark_images = " source=" + dir.file("data/val/dark");
  CHECK(run_trainer("predict model=" + dir.file("old.pt") + dark_images).exit_code == 0);

  move_away(dir / "data");
  const std::string moved_images = " source=" + dir.file("data-elsewhere/val/dark");
  const CommandResult predicted = run_trainer("predict model=" + (weights / "best.pt").string() + moved_images);
  INFO(predicted.output);
  REQUIRE(predicted.exit_code == 0);
  CHECK(count_lines(predicted.output, ".png: ") == 6);
  CHECK(count_lines(predicted.output, " dark ") == 6);  // both classes listed, by name, on every line
  const CommandResult old_predicted = run_trainer("predict model=" + dir.file("old.pt") + moved_images);
  CHECK(old_predicted.exit_code == 2);
  CHECK_THAT(old_predicted.output, Catch::Contains(dir.file("data")));

  TwoClassImages other;
  other.seed = 11;
  write_two_class_images(dir / "other", other);
  const CommandResult val = run_trainer("val model=" + (weights / "best.pt").string() + " data=" + dir.file("other"));
  INFO(val.output);
  CHECK(val.exit_code == 0);
  CHECK_THAT(val.output, Catch::Contains("top1"));
  other.dark = "black";
  write_two_class_images(dir / "renamed", other);
  const CommandResult renamed =
      run_trainer("val model=" + (weights / "best.pt").string() + " data=" + dir.file("renamed"));
  CHECK(renamed.exit_code == 2);
  CHECK_THAT(renamed.output, Catch::Contains("class 0 is 'black' there, 'bright' in the model"));
}

TEST_CASE("a detect best.pt predicts and exports without its data and validates on another data.yaml",
          "[cli][checkpoint][detect]") {
  TempDir dir("travel-detect");
  const std::string shapes = " --train 8 --val 4 --imgsz 64 --max-objects 3";
  REQUIRE(run_trainer("data synth-detect --out " + dir.file("shapes") + shapes).exit_code == 0);
  REQUIRE(run_trainer("data synth-detect --seed 9 --out " + dir.file("other") + shapes).exit_code == 0);
  const CommandResult train = run_trainer("detect train data=" + dir.file("shapes/data.yaml") +
                                          " model=yolov8n.yaml epochs=1 imgsz=64 batch=4 workers=1 " +
                                          "warmup_epochs=0 project=" + dir.file("runs") + " name=tiny -q");
  INFO(train.output);
  REQUIRE(train.exit_code == 0);
  const auto best = dir / "runs" / "tiny" / "weights" / "best.pt";
  const trainer::Checkpoint checkpoint = trainer::load_checkpoint(best);
  REQUIRE(checkpoint.card);
  CHECK(checkpoint.card->labels == std::vector<std::string>{"circle", "square", "triangle", "cross", "ring"});
  CHECK(checkpoint.card->height == 64);

  move_away(dir / "shapes");
  const CommandResult predicted =
      run_trainer("detect predict model=" + best.string() + " source=" + dir.file("shapes-elsewhere/images/val") +
                  " conf=0.0001 project=" + dir.file("runs"));
  INFO(predicted.output);
  REQUIRE(predicted.exit_code == 0);
  CHECK(count_lines(predicted.output, ".jpg: ") + count_lines(predicted.output, ".png: ") == 4);
  const CommandResult exported = run_trainer("export model=" + best.string() + " format=onnx");
  INFO(exported.output);
  CHECK(exported.exit_code == 0);
  CHECK(fs::exists(fs::path(best).replace_extension(".onnx")));

  const CommandResult val = run_trainer("detect val model=" + best.string() + " data=" + dir.file("other/data.yaml"));
  INFO(val.output);
  CHECK(val.exit_code == 0);
  CHECK_THAT(val.output, Catch::Contains("mAP50-95"));
  write_text(dir / "other" / "three.yaml", "train: images/train\nval: images/val\nnames: [circle, square, triangle]\n");
  const CommandResult three = run_trainer("val model=" + best.string() + " data=" + dir.file("other/three.yaml"));
  CHECK(three.exit_code == 2);
  CHECK_THAT(three.output, Catch::Contains("has 3 classes, the model was trained on 5"));
}

TEST_CASE("an OCR best.pt reads images without its data", "[cli][checkpoint][ocr]") {
  TempDir dir("travel-ocr");
  REQUIRE(run_trainer("data digits --out " + dir.file("digits") + " --train 32 --val 8").exit_code == 0);
  const CommandResult train =
      run_trainer("train data=" + dir.file("digits") +
                  " task=ocr model=crnn charset=labels imgH=32 imgW=128 buckets=32 "
                  "output_channel=32 hidden_size=32 batch=8 workers=1 epochs=1 warmup_epochs=0 project=" +
                  dir.file("runs") + " name=tiny -q");
  INFO(train.output);
  REQUIRE(train.exit_code == 0);
  const auto best = dir / "runs" / "tiny" / "weights" / "best.pt";
  const trainer::Checkpoint checkpoint = trainer::load_checkpoint(best);
  REQUIRE(checkpoint.card);
  CHECK(checkpoint.card->labels.size() == 10);  // the digits the labels hold
  CHECK(checkpoint.card->normalization.mean == std::vector<double>{0.5});

  move_away(dir / "digits");
  const CommandResult predicted =
      run_trainer("predict model=" + best.string() + " source=" + dir.file("digits-elsewhere/val"));
  INFO(predicted.output);
  REQUIRE(predicted.exit_code == 0);
  CHECK(count_lines(predicted.output, ".png: ") == 8);
}
