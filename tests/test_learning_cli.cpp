// Training learns, end to end through the binary: a tiny run ends well above chance on its
// validation set, and the same run with its updates shrunk to nothing stays below the same
// threshold, so the threshold is met by learning, not by the data or the initial weights.
// Classification, detection and OCR. What made the last two learn in a test's budget (measured on
// this machine, 2026-12-06): one thread (threads=1; two OpenMP threads on a shared 2-core machine
// ran YOLOv8n at 0.4-0.8 images/s instead of 40-80), no validation before the end (val=false), a
// task the model can learn in a few hundred updates (one large box a 64-px image; one digit a
// 32-px line), AdamW at a rate that does not stall CTC (0.01 left the CRNN at chance, 0.003 did
// not), and mosaic off, so that each update sees the boxes whole. synth-detect (one shape a 64-px
// photograph crop, 16 images) stayed at mAP50 0.001-0.009 after 48 to 120 updates of the same
// recipe, so the detection case draws its own boxes.
// lr0=1e-9 is the recipe's way to leave the weights where they start: lr0=0 is refused (lr0 must
// be > 0) and so is freezing every layer ("leaves no parameter of the model to train"). Warmup is
// off in both runs, so no bias learning rate of its own moves them either.
// The thresholds come from measured runs (the note of each case), with margin on both sides.
#include <catch2/catch.hpp>

#include <algorithm>

#include "detect_files.h"
#include "run/results_csv.h"
#include "test_helpers.h"

using namespace trainer::testing;

namespace {

constexpr const char* kFrozenLr = "1e-9";

// `column` of the last row of the run's results.csv: the final validation's value.
double final_value(const std::filesystem::path& run, const std::string& column) {
  const trainer::ResultsTable table = trainer::read_results(run / "results.csv");
  const auto at = std::find(table.header.begin(), table.header.end(), column);
  INFO(column << " in " << run / "results.csv");
  REQUIRE(at != table.header.end());
  REQUIRE(!table.rows.empty());
  return table.rows.back().at(static_cast<size_t>(at - table.header.begin()));
}

// Trains with `recipe` and the learning rate `lr0` into run `name`; returns the final `column`.
double trained(const TempDir& dir, const std::string& recipe, const std::string& lr0,
               const std::string& name, const std::string& column) {
  const CommandResult train =
      run_trainer("train " + recipe + " lr0=" + lr0 +
                  " warmup_epochs=0 plots=false -q project=" + dir.file("runs") + " name=" + name);
  INFO(train.output);
  REQUIRE(train.exit_code == 0);
  return final_value(dir / "runs" / name, column);
}

// Trains `recipe` at `lr0` and again with its updates frozen: the first run's final `column` must
// reach `learned`, the second's must not.
void check_learns(const TempDir& dir, const std::string& recipe, const std::string& lr0,
                  const std::string& column, double learned) {
  const double value = trained(dir, recipe, lr0, "learned", column);
  CHECK(value >= learned);
  const double frozen = trained(dir, recipe, kFrozenLr, "frozen", column);
  CHECK_FALSE(frozen >= learned);
}

// One red box (20 to 44 px a side, anywhere) on grey in each 64-px image: 16 to train on, 8 to
// validate, one class.
void write_box_images(const std::filesystem::path& root) {
  cv::RNG rng(7);
  for (const auto& [split, count] : {std::pair<std::string, int>{"train", 16}, {"val", 8}}) {
    for (int i = 0; i < count; ++i) {
      const int width = rng.uniform(20, 45), height = rng.uniform(20, 45);
      const cv::Rect box(rng.uniform(0, 65 - width), rng.uniform(0, 65 - height), width, height);
      write_labelled_image(root, split, std::to_string(i), cv::Size(64, 64), {{0, box}});
    }
  }
  write_text(root / "data.yaml", "train: images/train\nval: images/val\nnames: [box]\n");
}

}  // namespace

TEST_CASE("a tiny classifier learns dark from bright, with updates frozen it does not",
          "[cli][learning]") {
  // Measured (2026-12-06, this recipe): top1 1.0 after each epoch; with lr0=1e-9 0.58, then 0.5.
  // Chance is 0.5 (6 validation images a class).
  constexpr double kLearned = 0.9;
  TempDir dir("learning-classify");
  write_two_class_images(dir / "data");
  const std::string recipe =
      "data=" + dir.file("data") +
      " model=resnet18 epochs=2 batch=4 accumulate=1 imgsz=16 workers=1 optimizer=adamw";
  check_learns(dir, recipe, "0.001", "top1", kLearned);
}

TEST_CASE("a tiny YOLOv8n learns to find boxes, with updates frozen it finds none",
          "[cli][learning][detect]") {
  // Measured (2026-12-06, this recipe, 48 updates; 17 s both runs): mAP50 1.0; with lr0=1e-9 0.
  // The same recipe on five other sets of 16 boxes and seeds: 0.62 to 1.0. Threshold 0.4.
  TempDir dir("learning-detect");
  write_box_images(dir / "boxes");
  const std::string recipe =
      "task=detect model=yolov8n.yaml data=" + dir.file("boxes/data.yaml") +
      " imgsz=64 epochs=12 batch=4 accumulate=1 mosaic=0 val=false workers=1 threads=1"
      " optimizer=adamw";
  check_learns(dir, recipe, "0.005", "mAP50", 0.4);
}

TEST_CASE("a tiny CRNN learns to read digits, with updates frozen it reads none",
          "[cli][learning][ocr]") {
  // Measured (2026-12-06, this recipe, 960 updates; 32 s both runs): accuracy 0.64; with
  // lr0=1e-9 0.016. With other seeds and sets 0.72 to 0.75; with lr0=0.01 0.11 (CTC stalls).
  // Chance is 0.1 (one digit a line). Threshold 0.35.
  TempDir dir("learning-ocr");
  REQUIRE(run_trainer("data digits --out " + dir.file("digits") +
                      " --train 512 --val 64 --min-length 1 --max-length 1")
              .exit_code == 0);
  const std::string recipe =
      "task=ocr model=crnn data=" + dir.file("digits") +
      " charset=0123456789 imgH=32 imgW=32 buckets=32 output_channel=32 hidden_size=32"
      " epochs=15 batch=8 accumulate=1 val=false workers=1 threads=1 optimizer=adamw";
  check_learns(dir, recipe, "0.003", "accuracy", 0.35);
}
