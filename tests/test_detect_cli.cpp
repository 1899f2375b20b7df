// Detection through the real binary: the embedded generator, a tiny YOLOv8n run with Ultralytics'
// key names, val and predict from its checkpoint, label errors that name file and line, and a
// two-rank validation that equals one process's.
#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "io/checkpoint.h"
#include "test_helpers.h"

using namespace trainer::testing;

namespace {

// Typed as Ultralytics users do: the architecture's yaml name, task=detect implied.
const std::string kTinyYolo =
    " model=yolov8n.yaml imgsz=64 batch=4 accumulate=2 workers=1 max_boxes=16 close_mosaic=1 warmup_epochs=0 -q";

// The "  name: value" lines `train` prints for its final validation and `val` prints for a checkpoint.
std::string metric_line(const std::string& output, const std::string& name) {
  const size_t at = output.rfind("\n  " + name + ": ");
  return at == std::string::npos ? "" : output.substr(at + 1, output.find('\n', at + 1) - at - 1);
}

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
      run_trainer("train data=" + data + " epochs=2 mixup=0.5 project=" + dir.file("runs") + " name=tiny" + kTinyYolo);
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  const auto run = dir / "runs" / "tiny";
  // Ultralytics' spellings reached the run: its args.yaml holds each value asked for.
  const std::string args = "\n" + read_text(run / "args.yaml");
  for (const char* line : {"task: detect", "model: yolov8n", "epochs: 2", "mixup: 0.5", "imgsz: 64", "batch: 4",
                           "accumulate: 2", "workers: 1", "max_boxes: 16", "close_mosaic: 1", "warmup_epochs: 0"}) {
    CHECK_THAT(args, Catch::Contains("\n" + std::string(line) + "\n"));
  }
  const cv::Mat batch_plot = cv::imread((run / "train_batch0.jpg").string());
  CHECK(batch_plot.size() == cv::Size(192, 192));  // batch 4: 2 x 2 letterboxes of 64 px, enlarged to 96
  CHECK(!cv::imread((run / "labels.jpg").string()).empty());
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
  CHECK(val.output.find("instances") != std::string::npos);
  CHECK(val.output.find("\n  all ") != std::string::npos);

  // The confusion matrices of training's last validation and of `val` (its own folder): every
  // validation box counted once in its class's column, the background's column and row last.
  const auto val_folder = dir / "runs" / "val";
  CHECK(val.output.find("confusion matrix and curves in " + val_folder.string()) != std::string::npos);
  CHECK(read_text(run / "confusion_matrix.csv") == read_text(val_folder / "confusion_matrix.csv"));
  CHECK(std::filesystem::exists(val_folder / "confusion_matrix.png"));
  const auto confusion = read_confusion_counts(val_folder / "confusion_matrix.csv");
  std::vector<int64_t> boxes_per_class(confusion.size(), 0);
  for (const auto& entry : std::filesystem::directory_iterator(dir / "shapes" / "labels" / "val")) {
    std::istringstream lines(read_text(entry.path()));
    for (std::string line; std::getline(lines, line);) ++boxes_per_class.at(std::stoul(line));
  }
  REQUIRE(confusion.size() == 6);  // five shapes and the background
  for (size_t truth = 0; truth + 1 < confusion.size(); ++truth) {
    int64_t column = 0;
    for (const auto& row : confusion) column += row.at(truth);
    INFO("class " << truth);
    CHECK(column == boxes_per_class[truth]);
  }
  CHECK(confusion.back().back() == 0);
  // Ultralytics' PR, F1, P and R curves beside them (plots is on by default).
  for (const char* chart : {"PR_curve.png", "F1_curve.png", "P_curve.png", "R_curve.png"}) {
    CHECK(!cv::imread((run / chart).string()).empty());
    CHECK(!cv::imread((val_folder / chart).string()).empty());
  }

  const CommandResult predicted = run_trainer("predict --weights " + (run / "weights" / "last.pt").string() +
                                              " --source " + dir.file("shapes/images/val") + " project=" +
                                              dir.file("runs") + " conf=0.0001");
  INFO(predicted.output);
  REQUIRE(predicted.exit_code == 0);
  CHECK(count_lines(predicted.output, ": ") >= 6);
  // stdout alone: the result lines, without log lines (a checkpoint with its card opens no data,
  // so predict logs little; whatever it logs goes to stderr).
  const CommandResult stdout_only = run_command("{ " + std::string(TRAINER_BINARY) + " predict --weights " +
                                                (run / "weights" / "last.pt").string() + " --source " +
                                                dir.file("shapes/images/val") + " project=" + dir.file("runs") +
                                                " conf=0.0001 2>/dev/null; }");
  REQUIRE(stdout_only.exit_code == 0);
  CHECK(stdout_only.output.find("[info]") == std::string::npos);
  CHECK(stdout_only.output.find("[warning]") == std::string::npos);
  CHECK(count_lines(stdout_only.output, ": ") >= 6);
  const auto predictions = dir / "runs" / "predict";
  CHECK(std::filesystem::exists(predictions / "predictions.json"));
  CHECK(read_text(predictions / "predictions.json").find("\"detections\"") != std::string::npos);
  size_t annotated = 0;
  for (const auto& entry : std::filesystem::directory_iterator(predictions)) annotated += entry.path().extension() != ".json";
  CHECK(annotated == 6);
}

TEST_CASE("cache=ram trains to the same metrics as reading every file each epoch", "[detect][cli]") {
  TempDir dir("detect-cache");
  REQUIRE(run_trainer("data synth-detect --out " + dir.file("shapes") + " --train 8 --val 4 --imgsz 64 --max-objects 3")
              .exit_code == 0);
  const std::string args = " data=" + dir.file("shapes/data.yaml") + " epochs=2 project=" + dir.file("runs") + kTinyYolo;
  const CommandResult plain = run_trainer("train name=plain" + args);
  const CommandResult cached = run_trainer("train name=cached cache=ram" + args);
  INFO(plain.output << "\n---\n" << cached.output);
  REQUIRE(plain.exit_code == 0);
  REQUIRE(cached.exit_code == 0);
  // Same batches, so the same weights to the bit (CPU training is deterministic here).
  const trainer::Checkpoint a =
      trainer::load_checkpoint(dir / "runs" / "plain" / "weights" / "last.pt");
  const trainer::Checkpoint b =
      trainer::load_checkpoint(dir / "runs" / "cached" / "weights" / "last.pt");
  REQUIRE(a.model.size() == b.model.size());
  for (size_t i = 0; i < a.model.size(); ++i) {
    INFO(a.model[i].first);
    CHECK(torch::equal(a.model[i].second, b.model[i].second));
  }
  CHECK(metric_line(cached.output, "val/box_loss") == metric_line(plain.output, "val/box_loss"));
  // The memo announces itself (at info, which -q hides).
  const CommandResult told = run_trainer("train name=told cache=ram epochs=1" + args.substr(0, args.size() - 3));
  CHECK_THAT(told.output, Catch::Contains("cache=ram: keeping decoded images in memory"));
}

TEST_CASE("cache=disk trains as reading every file does, builds its files once and resumes exactly",
          "[detect][cli][pixel-cache]") {
  TempDir dir("detect-disk-cache");
  REQUIRE(run_trainer("data synth-detect --out " + dir.file("shapes") + " --train 8 --val 4 --imgsz 64 --max-objects 3")
              .exit_code == 0);
  const std::string args = " data=" + dir.file("shapes/data.yaml") + " epochs=3 project=" + dir.file("runs") + kTinyYolo;
  const std::string cached_args = " cache=disk cache_dir=" + dir.file("local-disk") + args;
  const CommandResult plain = run_trainer("train name=plain" + args);
  const CommandResult cached = run_trainer("train name=cached" + cached_args);
  INFO(plain.output << "\n---\n" << cached.output);
  REQUIRE(plain.exit_code == 0);
  REQUIRE(cached.exit_code == 0);
  // 64-px images are kept raw: the same batches, so the same weights to the bit.
  const auto weights = [&](const std::string& name) {
    return trainer::load_checkpoint(dir / "runs" / name / "weights" / "last.pt").model;
  };
  CHECK(trainer::identical(weights("cached"), weights("plain")));
  CHECK(metric_line(cached.output, "val/box_loss") == metric_line(plain.output, "val/box_loss"));
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "local-disk")) {
    files += entry.path().extension() == ".trainer-pixels";
  }
  CHECK(files == 2);  // training copies and letterboxed validation copies
  CHECK_FALSE(std::filesystem::exists(dir / "shapes" / "images" / "train.trainer-pixels"));

  // A later run maps the files it finds; SIGINT after the first epoch, then resume, ends with the
  // weights of the uninterrupted run.
  const std::string results = dir.file("runs/interrupted/results.csv");
  const CommandResult stopped = run_command(
      "{ " + std::string(TRAINER_BINARY) + " train name=interrupted" + cached_args.substr(0, cached_args.size() - 3) +
      " & pid=$!; while [ \"$(cat '" + results + "' 2>/dev/null | wc -l)\" -lt 2 ] && kill -0 $pid 2>/dev/null; " +
      "do sleep 0.05; done; kill -INT $pid; wait $pid; }");
  INFO(stopped.output);
  REQUIRE(stopped.exit_code == 130);
  CHECK(stopped.output.find("cache=disk: writing") == std::string::npos);
  const std::string last = dir.file("runs/interrupted/weights/last.pt");
  const CommandResult resumed = run_trainer("train resume=" + last + " -q");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK(trainer::identical(weights("interrupted"), weights("cached")));
}

TEST_CASE("yolo11n typed as Ultralytics' docs type it trains, validates from its checkpoint and exports ONNX",
          "[detect][cli][yolo11]") {
  TempDir dir("detect-yolo11");
  REQUIRE(run_trainer("data synth-detect --out " + dir.file("shapes") + " --train 8 --val 4 --imgsz 64").exit_code == 0);
  std::string args = kTinyYolo;
  args.replace(args.find("yolov8n.yaml"), 12, "yolo11n.yaml");
  const CommandResult trained = run_trainer("detect train epochs=1 data=" + dir.file("shapes/data.yaml") +
                                            " project=" + dir.file("runs") + " name=v11" + args);
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  const auto weights = dir / "runs" / "v11" / "weights" / "last.pt";
  CHECK(read_text(dir / "runs" / "v11" / "args.yaml").find("model: yolo11n\n") !=
        std::string::npos);
  const trainer::Checkpoint saved = trainer::load_checkpoint(weights);
  const auto has_key = [&](const std::string& key) {
    return std::any_of(saved.model.begin(), saved.model.end(), [&](const auto& entry) { return entry.first == key; });
  };
  CHECK(has_key("model.10.m.0.attn.qkv.conv.weight"));  // C2PSA: a YOLO11, not a YOLOv8
  CHECK(has_key("model.23.dfl.conv.weight"));
  const CommandResult val = run_trainer("val --weights " + weights.string());
  INFO(val.output);
  CHECK(val.exit_code == 0);
  CHECK(val.output.find("mAP50-95") != std::string::npos);
  const CommandResult exported = run_trainer("export model=" + weights.string() + " format=onnx");
  INFO(exported.output);
  CHECK(exported.exit_code == 0);
  CHECK(exported.output.find("output [1, 9, 84]") != std::string::npos);  // 4 + 5 classes, 64 px
}

TEST_CASE("a user's own model yaml and yolo26n train and validate, yolo26n without NMS",
          "[detect][cli][yolo26]") {
  TempDir dir("detect-definition");
  REQUIRE(run_trainer("data synth-detect --out " + dir.file("shapes") + " --train 8 --val 4 --imgsz 64").exit_code == 0);
  // YOLOv5u's layout at one C3 per stage, with a 1x1 SPPF neighbour: Ultralytics' format, our rows.
  write_text(dir / "tiny-yolov5n.yaml",
             "nc: 80\nscales:\n  n: [0.33, 0.25, 1024]\nbackbone:\n"
             "  - [-1, 1, Conv, [64, 6, 2, 2]]\n  - [-1, 1, Conv, [128, 3, 2]]\n  - [-1, 1, C3, [128]]\n"
             "  - [-1, 1, Conv, [256, 3, 2]]\n  - [-1, 1, C3, [256]]\n  - [-1, 1, Conv, [512, 3, 2]]\n"
             "  - [-1, 1, Conv, [1024, 3, 2]]\n  - [-1, 1, SPPF, [1024, 5]]\n"
             "head:\n  - [[4, 5, 7], 1, Detect, [nc]]\n");
  std::string args = kTinyYolo;
  args.replace(args.find("yolov8n.yaml"), 12, dir.file("tiny-yolov5n.yaml"));
  const CommandResult trained = run_trainer("detect train epochs=1 data=" + dir.file("shapes/data.yaml") +
                                            " project=" + dir.file("runs") + " name=own" + args);
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  const auto weights = dir / "runs" / "own" / "weights" / "last.pt";
  CHECK(read_text(dir / "runs" / "own" / "args.yaml").find("tiny-yolov5n.yaml") != std::string::npos);
  const CommandResult val = run_trainer("val --weights " + weights.string());
  INFO(val.output);
  CHECK(val.exit_code == 0);
  CHECK(val.output.find("mAP50-95") != std::string::npos);
  // The checkpoint carries the file's text (as Ultralytics' .pt its yaml dict): moved or changed,
  // the file no longer decides the architecture, for val, export or the exported file's val.
  const std::string definition = read_text(dir / "tiny-yolov5n.yaml");
  REQUIRE(trainer::load_checkpoint(weights).card->model_definition == definition);
  std::filesystem::rename(dir / "tiny-yolov5n.yaml", dir / "moved.yaml");
  const CommandResult moved = run_trainer("val --weights " + weights.string());
  INFO(moved.output);
  CHECK(moved.exit_code == 0);
  CHECK(metric_line(moved.output, "mAP50-95") == metric_line(val.output, "mAP50-95"));
  std::string changed = definition;
  changed.replace(changed.find("C3, [256]"), 9, "C3, [128]");
  write_text(dir / "tiny-yolov5n.yaml", changed);
  const CommandResult edited = run_trainer("val --weights " + weights.string());
  INFO(edited.output);
  CHECK(edited.exit_code == 0);
  CHECK(metric_line(edited.output, "mAP50-95") == metric_line(val.output, "mAP50-95"));
  std::filesystem::remove(dir / "tiny-yolov5n.yaml");
  const auto onnx = dir / "own.onnx";
  const CommandResult exported = run_trainer("export model=" + weights.string() + " format=onnx -o " + onnx.string());
  INFO(exported.output);
  REQUIRE(exported.exit_code == 0);
  const CommandResult deployed = run_trainer("val model=" + onnx.string() + " data=" + dir.file("shapes/data.yaml"));
  INFO(deployed.output);
  CHECK(deployed.exit_code == 0);
  CHECK(deployed.output.find("mAP50-95") != std::string::npos);
  const CommandResult resumed = run_trainer("train resume=" + weights.string() + " epochs=2 -q");
  INFO(resumed.output);
  CHECK(resumed.exit_code == 0);
  CHECK(trainer::load_checkpoint(weights).epoch == 2);

  args = kTinyYolo;
  args.replace(args.find("yolov8n.yaml"), 12, "yolo26n.yaml");
  // With 8.4's MuSGD, which its optimizer=auto picks for runs of over 10,000 updates.
  const CommandResult yolo26 = run_trainer("detect train epochs=2 optimizer=MuSGD data=" + dir.file("shapes/data.yaml") +
                                           " project=" + dir.file("runs") + " name=v26" + args);
  INFO(yolo26.output);
  REQUIRE(yolo26.exit_code == 0);
  const trainer::Checkpoint saved = trainer::load_checkpoint(dir / "runs" / "v26" / "weights" / "last.pt");
  CHECK(std::any_of(saved.model.begin(), saved.model.end(),
                    [](const auto& entry) { return entry.first == "model.23.one2one_cv2.0.2.bias"; }));
  CHECK(read_text(dir / "runs" / "v26" / "args.yaml").find("optimizer: musgd") != std::string::npos);
  const CommandResult val26 = run_trainer("val --weights " + (dir / "runs" / "v26" / "weights" / "last.pt").string());
  INFO(val26.output);
  CHECK(val26.exit_code == 0);
  CHECK(val26.output.find("mAP50-95") != std::string::npos);
}

TEST_CASE("single_cls trains and validates every object as one class named item", "[detect][cli]") {
  TempDir dir("detect-single");
  REQUIRE(run_trainer("data synth-detect --out " + dir.file("shapes") + " --train 8 --val 4 --imgsz 64").exit_code == 0);
  const CommandResult trained = run_trainer("train single_cls epochs=1 data=" + dir.file("shapes/data.yaml") +
                                            " project=" + dir.file("runs") + " name=one" + kTinyYolo);
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  const auto run = dir / "runs" / "one";
  // Every validation box counted in the one class's column; the background is the other.
  const auto confusion = read_confusion_counts(run / "confusion_matrix.csv");
  REQUIRE(confusion.size() == 2);
  int64_t boxes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "shapes" / "labels" / "val")) {
    boxes += int64_t(count_lines(read_text(entry.path()), " "));
  }
  CHECK(confusion[0][0] + confusion[1][0] == boxes);
  const CommandResult val = run_trainer("val --weights " + (run / "weights" / "last.pt").string());
  INFO(val.output);
  CHECK(val.exit_code == 0);
  CHECK(val.output.find("\n  item ") != std::string::npos);  // the per-class row
}

TEST_CASE("cache=ram that would crowd the memory is skipped with a warning", "[detect][cli]") {
  TempDir dir("detect-cache-size");
  REQUIRE(run_trainer("data synth-detect --out " + dir.file("shapes") + " --train 8 --val 4 --imgsz 64").exit_code == 0);
  // At imgsz 100000 the 12 images would take 315 GB.
  const CommandResult plan =
      run_trainer("plan task=detect model=yolov8n.yaml imgsz=100000 cache=ram data=" +
                  dir.file("shapes/data.yaml"));
  INFO(plan.output);
  CHECK(plan.exit_code == 0);
  CHECK_THAT(plan.output, Catch::Contains("cache=ram: the decoded images need 315.0 GB") && Catch::Contains("not caching"));
}

TEST_CASE("detection label errors name file and line, strict makes them fatal", "[detect][cli]") {
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

  const CommandResult no_data =
      run_trainer("train task=detect model=yolov8n.yaml data=" + dir.file("none.yaml"));
  CHECK(no_data.exit_code == 2);
  CHECK(no_data.output.find("synth-detect") != std::string::npos);
  const CommandResult wrong_model = run_trainer("train task=detect model=yolov8q data=" + dir.file("shapes/data.yaml"));
  CHECK(wrong_model.exit_code == 2);
  CHECK(wrong_model.output.find("yolov8n") != std::string::npos);
}

TEST_CASE("two ranks validate detection as one process validates the whole split", "[detect][dist][cli]") {
  TempDir dir("detect-dist");
  // 11 validation images in batches of 8 (twice batch=4): rank 0 validates 8 of them, rank 1 the 3 left.
  REQUIRE(run_trainer("data synth-detect --out " + dir.file("shapes") + " --train 16 --val 11 --imgsz 64 --max-objects 3")
              .exit_code == 0);
  const CommandResult trained = run_trainer("train data=" + dir.file("shapes/data.yaml") +
                                            " epochs=1 nproc=2 threads=1 project=" + dir.file("runs") + " name=two" + kTinyYolo);
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  const CommandResult val = run_trainer(
      "val --weights " + (dir / "runs" / "two" / "weights" / "last.pt").string() + " threads=1");
  INFO(val.output);
  REQUIRE(val.exit_code == 0);
  for (const std::string name : {"val/box_loss", "precision", "recall", "mAP50", "mAP50-95"}) {
    CHECK(!metric_line(val.output, name).empty());
    CHECK(metric_line(trained.output, name) == metric_line(val.output, name));
  }
  CHECK(read_text(dir / "runs" / "two" / "confusion_matrix.csv") ==
        read_text(dir / "runs" / "val" / "confusion_matrix.csv"));
}
