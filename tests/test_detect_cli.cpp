// Detection through the real binary: the embedded generator, a tiny YOLOv8n run with Ultralytics'
// key names, val and predict from its checkpoint, and label errors that name file and line.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "test_helpers.h"

using namespace trainer::testing;

namespace {

size_t count_lines(const std::string& text, const std::string& needle) {
  size_t count = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) count += line.find(needle) != std::string::npos;
  return count;
}

const std::string kTinyYolo =
    " task=detect model=yolov8n imgsz=64 batch=4 accumulate=2 workers=1 max_boxes=16 close_mosaic=1 warmup_epochs=0 -q";

}  // namespace

TEST_CASE("a tiny YOLOv8n trains on synth-detect, validates and predicts through the binary", "[detect][cli]") {
  TempDir dir("detect-cli");
  const CommandResult made =
      run_trainer("data synth-detect --out " + dir.file("shapes") + " --train 12 --val 6 --imgsz 64 --max-objects 3");
  INFO(made.output);
  REQUIRE(made.exit_code == 0);
  const std::string data = dir.file("shapes/data.yaml");
  REQUIRE(std::filesystem::exists(data));

  const CommandResult trained =
      run_trainer("train data=" + data + " epochs=2 project=" + dir.file("runs") + " name=tiny" + kTinyYolo);
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  const auto run = dir / "runs" / "detect" / "tiny";
  const std::string results = read_text(run / "results.csv");
  for (const char* column : {"box_loss", "cls_loss", "dfl_loss", "mAP50", "mAP50-95", "precision", "recall"}) {
    CHECK(results.find(column) != std::string::npos);
  }
  CHECK(std::count(results.begin(), results.end(), '\n') == 3);

  const CommandResult val = run_trainer("val --weights " + (run / "weights" / "last.pt").string());
  INFO(val.output);
  REQUIRE(val.exit_code == 0);
  CHECK(val.output.find("mAP50-95") != std::string::npos);
  CHECK(val.output.find("AP50") != std::string::npos);  // the per-class table

  const CommandResult predicted = run_trainer("predict --weights " + (run / "weights" / "last.pt").string() +
                                              " --source " + dir.file("shapes/images/val") + " project=" +
                                              dir.file("runs") + " conf=0.0001");
  INFO(predicted.output);
  REQUIRE(predicted.exit_code == 0);
  CHECK(count_lines(predicted.output, ": ") >= 6);
  const auto predictions = dir / "runs" / "detect" / "predict";
  CHECK(std::filesystem::exists(predictions / "predictions.json"));
  CHECK(read_text(predictions / "predictions.json").find("\"detections\"") != std::string::npos);
  size_t annotated = 0;
  for (const auto& entry : std::filesystem::directory_iterator(predictions)) annotated += entry.path().extension() != ".json";
  CHECK(annotated == 6);
}

TEST_CASE("detection label errors name file and line; strict makes them fatal", "[detect][cli]") {
  TempDir dir("detect-errors");
  REQUIRE(run_trainer("data synth-detect --out " + dir.file("shapes") + " --train 4 --val 2 --imgsz 64").exit_code == 0);
  std::vector<std::filesystem::path> labels;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "shapes" / "labels" / "train")) {
    if (entry.path().extension() == ".txt") labels.push_back(entry.path());
  }
  std::sort(labels.begin(), labels.end());
  REQUIRE_FALSE(labels.empty());
  write_text(labels.front(), read_text(labels.front()) + "7 0.5 0.5 0.2\n");  // line with 4 columns
  const std::string args = " data=" + dir.file("shapes/data.yaml") + " epochs=1 project=" + dir.file("runs") + kTinyYolo;
  const CommandResult strict = run_trainer("train strict" + args);
  CHECK(strict.exit_code == 2);
  CHECK(strict.output.find(labels.front().filename().string() + ":") != std::string::npos);

  const CommandResult no_data = run_trainer("train task=detect model=yolov8n data=" + dir.file("none.yaml"));
  CHECK(no_data.exit_code == 2);
  CHECK(no_data.output.find("synth-detect") != std::string::npos);
  const CommandResult wrong_model = run_trainer("train task=detect model=yolov8q data=" + dir.file("shapes/data.yaml"));
  CHECK(wrong_model.exit_code == 2);
  CHECK(wrong_model.output.find("yolov8n") != std::string::npos);
}
