// `trainer export … format=onnx` end to end, one tiny trained run per family.
#include <catch2/catch.hpp>

#include <array>
#include <cstdlib>
#include <tuple>
#include <functional>
#include <regex>

#include "test_helpers.h"

using namespace trainer::testing;

namespace {

// One epoch of a tiny run `name` on `data` (made by the caller); returns its best.pt.
std::string train_tiny(const TempDir& dir, const std::string& name, const std::string& data,
                       const std::string& arguments) {
  const CommandResult train =
      run_trainer("train data=" + data + " epochs=1 workers=1 -q project=" + dir.file("runs") +
                  " name=" + name + " " + arguments);
  INFO(train.output);
  REQUIRE(train.exit_code == 0);
  return (dir / "runs" / name / "weights" / "best.pt").string();
}

std::string train_classify(const TempDir& dir) {
  write_two_class_images(dir / "data", {8, 8, 16, 5});
  return train_tiny(dir, "classify", dir.file("data"), "model=resnet18 batch=4 imgsz=32");
}

std::string train_ocr(const TempDir& dir) {
  REQUIRE(run_trainer("data digits --out " + dir.file("digits") + " --train 32 --val 8").exit_code == 0);
  return train_tiny(
      dir, "ocr", dir.file("digits"),
      "charset=0123456789 task=ocr model=crnn imgH=32 imgW=128 buckets=32 output_channel=32 "
      "hidden_size=32 batch=8 warmup_epochs=0");
}

std::string train_detect(const TempDir& dir, const std::string& model = "yolov8n") {
  if (!std::filesystem::exists(dir / "shapes")) {
    REQUIRE(run_trainer("data synth-detect --out " + dir.file("shapes") +
                        " --train 8 --val 4 --imgsz 64 --max-objects 3")
                .exit_code == 0);
  }
  return train_tiny(dir, model, dir.file("shapes/data.yaml"),
                    "model=" + model + ".yaml imgsz=64 batch=4 max_boxes=16 warmup_epochs=0");
}

CommandResult export_onnx(const std::string& arguments) {
  const CommandResult result = run_trainer("export " + arguments);
  INFO(arguments << "\n" << result.output);
  CHECK(result.exit_code == 0);
  return result;
}

// The value of the last "  name: value" line `val` prints.
double metric(const std::string& output, const std::string& name) {
  const size_t at = output.rfind("\n  " + name + ": ");
  INFO(name << " in\n" << output);
  REQUIRE(at != std::string::npos);
  return std::stod(output.substr(at + name.size() + 5));
}

// `predict`'s result lines (those naming an image under `source`), in order.
std::vector<std::string> results(const std::string& output, const std::string& source) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(source, 0) == 0) lines.push_back(line);
  }
  return lines;
}

using SameResult = std::function<void(const std::string& checkpoint_line, const std::string& onnx_line)>;

// Exports `run`'s checkpoint, then validates and predicts with both: the same metrics within
// rounding (val prints 4 decimals) and, line by line, the same results as `same` judges them.
// `recorded` is given to export and to the checkpoint's val and predict; the file's recipe holds it.
void check_deployed(const std::string& checkpoint, const std::vector<std::string>& metrics, const std::string& source,
                    const std::string& predict_arguments, const SameResult& same, const std::string& recorded = "") {
  const CommandResult exported = run_trainer("export format=onnx model=" + checkpoint + " " + recorded);
  INFO(exported.output);
  REQUIRE(exported.exit_code == 0);
  const std::string onnx = checkpoint.substr(0, checkpoint.size() - 3) + ".onnx";
  const CommandResult val_pt = run_trainer("val model=" + checkpoint + " " + recorded);
  const CommandResult val_onnx = run_trainer("val model=" + onnx);
  INFO(val_pt.output << "\n" << val_onnx.output);
  REQUIRE(val_pt.exit_code == 0);
  REQUIRE(val_onnx.exit_code == 0);
  CHECK_THAT(val_onnx.output, Catch::Contains("best.onnx (ONNX in OpenCV DNN):"));
  for (const std::string& name : metrics) {
    INFO(name);
    CHECK(metric(val_onnx.output, name) == Approx(metric(val_pt.output, name)).margin(2e-4));
  }
  const CommandResult predict_pt =
      run_trainer("predict model=" + checkpoint + " source=" + source + predict_arguments + " " + recorded);
  const CommandResult predict_onnx = run_trainer("predict model=" + onnx + " source=" + source + predict_arguments);
  INFO(predict_pt.output << "\n" << predict_onnx.output);
  REQUIRE(predict_onnx.exit_code == 0);
  const std::vector<std::string> expected = results(predict_pt.output, source),
                                 actual = results(predict_onnx.output, source);
  REQUIRE(!expected.empty());
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) same(expected[i], actual[i]);
}

// The numbers of a line, in order, and the line with each number replaced by '#'.
std::pair<std::vector<double>, std::string> numbers_of(const std::string& line) {
  const std::regex number(R"(-?[0-9]+(\.[0-9]+)?)");
  std::vector<double> values;
  for (std::sregex_iterator it(line.begin(), line.end(), number), end; it != end; ++it)
    values.push_back(std::stod(it->str()));
  return {values, std::regex_replace(line, number, "#")};
}

// The same words (classes, texts) and numbers within `tolerance` (probabilities, pixels).
SameResult same_within(double tolerance) {
  return [tolerance](const std::string& checkpoint_line, const std::string& onnx_line) {
    INFO(checkpoint_line << "\n" << onnx_line);
    const auto [expected, expected_words] = numbers_of(checkpoint_line);
    const auto [actual, actual_words] = numbers_of(onnx_line);
    CHECK(actual_words == expected_words);
    REQUIRE(actual.size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i) CHECK(actual[i] == Approx(expected[i]).margin(tolerance));
  };
}

struct Detection {
  std::string label;
  std::array<int, 4> box;  // x1 y1 x2 y2, rounded to pixels as predict prints them
  double confidence;
  bool operator<(const Detection& other) const { return std::tie(label, box) < std::tie(other.label, other.box); }
};

// The detections "label confidence [x1 y1 x2 y2], …" of one predict line, by label and box: the
// untrained model gives every class the same confidence for a box, an order NMS may break either
// way between two runtimes.
std::vector<Detection> detections_of(const std::string& line) {
  const std::regex detection(R"(([^ ,:]+) ([0-9.]+) \[(-?[0-9]+) (-?[0-9]+) (-?[0-9]+) (-?[0-9]+)\])");
  std::vector<Detection> found;
  for (std::sregex_iterator it(line.begin(), line.end(), detection), end; it != end; ++it) {
    const std::smatch& m = *it;
    found.push_back({m[1], {std::stoi(m[3]), std::stoi(m[4]), std::stoi(m[5]), std::stoi(m[6])}, std::stod(m[2])});
  }
  std::sort(found.begin(), found.end());
  return found;
}

// The same detections of one image: confidences within 2e-5 (predict prints 5 decimals here) and
// box corners within a pixel (printed rounded to pixels, a corner within half a pixel either side
// may print one pixel apart). Returns how many it compared.
size_t same_detections(const std::string& checkpoint_line, const std::string& onnx_line) {
  INFO(checkpoint_line << "\n" << onnx_line);
  const std::vector<Detection> expected = detections_of(checkpoint_line), actual = detections_of(onnx_line);
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    CHECK(actual[i].label == expected[i].label);
    CHECK(actual[i].confidence == Approx(expected[i].confidence).margin(2e-5));
    for (size_t corner = 0; corner < 4; ++corner) CHECK(std::abs(actual[i].box[corner] - expected[i].box[corner]) <= 1);
  }
  return expected.size();
}

}  // namespace

TEST_CASE("predict and val through an exported ONNX file give the checkpoint's results", "[onnx][cli]") {
  TempDir dir("onnx-deploy");
  SECTION("classification: the same classes and probabilities") {
    const std::string checkpoint = train_classify(dir);
    check_deployed(checkpoint, {"val/loss", "top1", "top5"}, dir.file("data/val/bright"), " --digits 5",
                   same_within(2e-5));
  }
  SECTION("OCR: the same texts") {
    const std::string checkpoint = train_ocr(dir);
    check_deployed(checkpoint, {"val/ctc", "accuracy", "norm_ED", "CER"}, dir.file("digits/val"), " --digits 5",
                   same_within(2e-5));
  }
  SECTION("detection: the same boxes") {
    const std::string checkpoint = train_detect(dir);
    size_t detections = 0;
    check_deployed(checkpoint, {"precision", "recall", "mAP50", "mAP50-95"}, dir.file("shapes/images/val"),
                   " conf=0.001 max_det=5 --digits 5 exist_ok",
                   [&](const std::string& expected, const std::string& actual) {
                     detections += same_detections(expected, actual);
                   });
    // Boxes to compare: the one-epoch model scores every box near its class prior (about 0.0025),
    // so at predict's usual conf=0.01 it finds none, and a comparison of "no objects" proves nothing.
    CHECK(detections > 0);
  }
  SECTION("end-to-end detection (YOLO26): the same top rows, and with end2end=false the same NMS boxes") {
    const std::string checkpoint = train_detect(dir, "yolo26n");
    for (const std::string recorded : {"", "end2end=false"}) {
      INFO(recorded);
      size_t detections = 0;
      check_deployed(
          checkpoint, {"precision", "recall", "mAP50", "mAP50-95"}, dir.file("shapes/images/val"),
          " conf=0.001 max_det=5 --digits 5 exist_ok",
          [&](const std::string& expected, const std::string& actual) { detections += same_detections(expected, actual); },
          recorded);
      CHECK(detections > 0);
    }
  }
  SECTION("YOLO classification (yolo11n-cls): the same classes and probabilities") {
    write_two_class_images(dir / "data", {8, 8, 16, 5});
    const std::string checkpoint =
        train_tiny(dir, "yolo-cls", dir.file("data"), "model=yolo11n-cls.yaml batch=4 imgsz=32");
    check_deployed(checkpoint, {"val/loss", "top1", "top5"}, dir.file("data/val/bright"), " --digits 5",
                   same_within(2e-5));
  }
}

TEST_CASE("export format=onnx writes each family next to its checkpoint", "[onnx][cli]") {
  TempDir dir("onnx-cli");
  const std::string classify = train_classify(dir);
  const CommandResult resnet = export_onnx("model=" + classify + " format=onnx");
  CHECK_THAT(resnet.output, Catch::Contains("exported resnet18 (EMA weights, epoch 1)") &&
                                Catch::Contains("best.onnx: opset 12, input [1, 3, 32, 32], output [1, 2]") &&
                                Catch::Contains("operators: Conv, BatchNormalization, Relu, MaxPool, Add"));
  CHECK(std::filesystem::exists(dir / "runs" / "classify" / "weights" / "best.onnx"));
  // best.pt is stripped to its EMA weights: the model weights come from last.pt.
  const std::string last = (std::filesystem::path(classify).parent_path() / "last.pt").string();
  const CommandResult stripped = run_trainer("export --weights " + classify + " --model-weights format=onnx");
  CHECK(stripped.exit_code == 2);
  CHECK_THAT(stripped.output, Catch::Contains("take the run's last.pt"));
  const CommandResult folded = export_onnx("--weights " + last + " -o " + dir.file("r.onnx") +
                                           " imgsz=64,48 batch=2 dynamic simplify opset=17 --model-weights");
  CHECK_THAT(folded.output, Catch::Contains("(model weights") && Catch::Contains("input [batch, 3, 64, 48]"));
  CHECK_THAT(folded.output, !Catch::Contains("BatchNormalization"));

  const std::string ocr = train_ocr(dir);
  CHECK_THAT(export_onnx("model=" + ocr + " format=onnx dynamic").output,
             Catch::Contains("input [batch, 1, 32, width], output [batch, steps, 11]") && Catch::Contains("LSTM"));
  const std::string detect = train_detect(dir);
  CHECK_THAT(export_onnx("model=" + detect + " format=onnx half").output,
             Catch::Contains(", fp16, input [1, 3, 64, 64], output [1, 9, 84]"));
  run_python("onnx_check.py",
             quoted(dir.file("r.onnx")) + " " +
                 quoted((dir / "runs" / "classify" / "weights" / "best.onnx").string()));
}

TEST_CASE("export refuses arguments it cannot honour, naming them", "[onnx][cli]") {
  TempDir dir("onnx-cli-errors");
  const std::string classify = train_classify(dir);
  const auto refused = [&](const std::string& arguments, const std::string& message) {
    const CommandResult result = run_trainer("export " + arguments);
    INFO(arguments << "\n" << result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains(message));
  };
  refused("model=" + classify + " format=onnx imgsz=big", "imgsz=big is not a size");
  refused("model=" + classify + " format=onnx opset=9", "opset=9 is not supported; use 11 to 17");
  refused("model=" + classify + " format=onnx dynamic=maybe", "dynamic=maybe is not true or false");
  refused("model=" + classify + " format=onnx simplfy", "unknown argument 'simplfy' (did you mean 'simplify'?)");
  refused("model=" + classify + " format=pt opset=13", "opset apply to format=onnx only");
  refused("model=" + classify + " format=tflite", "format=tflite is not supported; use onnx, pt or safetensors");
  refused("format=onnx", "export needs a checkpoint");
}
