// YOLO11 detection and the YOLO -cls classifiers must be Ultralytics' models key for key: the
// parameter counts Ultralytics publishes in cfg/models/11/yolo11.yaml and yolo11-cls.yaml, and
// the keys, shapes and outputs of scripts/python/yolo11_fixture.py, the models written in Python
// from Ultralytics' module definitions and built by a transcription of parse_model (independent
// of the C++ layer table).
#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <map>

#include "families/model_family.h"
#include "families/recipes.h"
#include "io/pretrained.h"
#include "io/state_dict.h"
#include "io/tensor_archive.h"
#include "io/checkpoint.h"
#include "io/ultralytics_checkpoint.h"
#include "models/yolo.h"
#include "models/yolo_definition.h"
#include "onnx/onnx_export.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;

namespace {

std::string reference_file(const std::string& name) {
  static const testing::PythonOutput fixture("yolo11_fixture.py");
  return fixture.file(name);
}

std::map<std::string, std::vector<int64_t>> shapes(const torch::nn::Module& module) {
  std::map<std::string, std::vector<int64_t>> out;
  for (const auto& [name, tensor] : state_dict(module)) out[name] = tensor.sizes().vec();
  return out;
}

}  // namespace

TEST_CASE("the YOLO models have Ultralytics' parameter counts at 80 classes",
          "[detect][classify][yolo11][yolo26]") {
  // Ultralytics' own summaries, from the comments of cfg/models/11/yolo11.yaml, yolo11-cls.yaml,
  // 26/yolo26.yaml and v5/yolov5.yaml (its n only); 0: the Python reference's count alone
  // (yolov8-cls.yaml publishes none).
  const auto [name, published] = GENERATE(table<std::string, int64_t>({
      {"yolo11n", 2'624'080},
      {"yolo11s", 9'458'752},
      {"yolo11m", 20'114'688},
      {"yolo11l", 25'372'160},
      {"yolo11x", 56'966'176},
      {"yolo26n", 2'572'280},
      {"yolo26s", 10'009'784},
      {"yolo26m", 21'896'248},
      {"yolo26l", 26'299'704},
      {"yolo26x", 58'993'368},
      {"yolov5nu", 2'654'816},
      {"yolov5su", 0},
      {"yolov5xu", 0},
      {"yolo11n-cls", 1'633'584},
      {"yolo11s-cls", 5'545'488},
      {"yolo11m-cls", 10'455'696},
      {"yolo11l-cls", 12'937'104},
      {"yolo11x-cls", 28'458'544},
      {"yolov8n-cls", 0},
      {"yolov8m-cls", 0},
      {"yolov8x-cls", 0},
  }));
  INFO(name);
  const Yolo model = make_yolo(name, 3, 80);
  const c10::impl::GenericDict counts = read_archive(reference_file("counts.pt")).toGenericDict();
  if (published > 0) CHECK(counts.at(name).toInt() == published);  // the reference agrees
  CHECK(testing::parameter_count(*model) == counts.at(name).toInt());
  CHECK(static_cast<int64_t>(state_dict(*model).size()) == counts.at(name + ".entries").toInt());
}

TEST_CASE("yolo11n has the reference's state-dict keys and shapes", "[detect][yolo11]") {
  const Yolo model = make_yolo("yolo11n", 3, 5);
  std::map<std::string, std::vector<int64_t>> expected;
  for (const auto& [name, tensor] : read_pretrained(reference_file("yolo11n_sd.pt")).tensors) {
    expected[name] = tensor.sizes().vec();
  }
  const auto actual = shapes(*model);
  CHECK(actual.size() == expected.size());
  for (const auto& [key, shape] : expected) {
    INFO(key);
    REQUIRE(actual.count(key) == 1);
    CHECK(actual.at(key) == shape);
  }
  // The layers that make it YOLO11: C3k2 with C3k inside (6), C2PSA attention (10), the
  // depthwise class branch of the Detect head (23).
  CHECK(actual.at("model.6.m.0.m.1.cv2.conv.weight") == std::vector<int64_t>{32, 32, 3, 3});
  CHECK(actual.at("model.10.m.0.attn.qkv.conv.weight") == std::vector<int64_t>{256, 128, 1, 1});
  CHECK(actual.at("model.23.cv3.0.0.0.conv.weight") == std::vector<int64_t>{64, 1, 3, 3});
}

TEST_CASE("yolo11n with the reference's weights gives its outputs", "[detect][yolo11]") {
  Yolo model = make_yolo("yolo11n", 3, 5);
  testing::check_reference_outputs(
      *model, [&](const torch::Tensor& input) { return model->forward(input); },
      reference_file("yolo11n_sd.pt"), reference_file("yolo11n.pt"));
}

TEST_CASE("yolo11 is a registered detection family, told from YOLOv8 by its layout",
          "[detect][yolo11][families]") {
  CHECK(task_of_model("yolo11s") == TaskKind::detect);
  const DetectorModel built = build_detector({"yolo11n", 3, 2});
  CHECK(built.strides == std::vector<double>{8, 16, 32});
  CHECK(built.forward(torch::zeros({1, 3, 64, 64})).at(2).sizes() ==
        torch::IntArrayRef({1, 4 * 16 + 2, 2, 2}));
  CHECK_THROWS_WITH(make_yolo("yolo11q", 3, 80), Catch::Contains("yolo11n"));
  // Ultralytics' export layout: [B, 4 + classes, anchors].
  ModelCard card{"detect", "yolo11n", {"a", "b"}, 3, 64, 64};
  const std::vector<onnx_export::Dim> output = onnx_export::export_onnx(built.onnx_graph, card, {}).output;
  CHECK((output == std::vector<onnx_export::Dim>{int64_t{1}, int64_t{6}, int64_t{64 + 16 + 4}}));

  UltralyticsModel file;
  file.type = "ultralytics.nn.tasks.DetectionModel";
  file.scale = "n";
  const std::map<std::string, torch::Tensor> yolo11_weights =
      read_pretrained(reference_file("yolo11n_sd.pt")).tensors;
  file.weights.assign(yolo11_weights.begin(), yolo11_weights.end());
  CHECK(ultralytics_architecture(file) == "yolo11n");
  file.weights = state_dict(*make_yolo("yolov8n", 3, 5));
  CHECK(ultralytics_architecture(file) == "yolov8n");
  file.weights = {};
  CHECK(ultralytics_architecture(file).empty());  // a layout neither family has: nothing is built
}

TEST_CASE("yolo11n-cls with the reference's weights gives its logits at any image size",
          "[classify][yolo11]") {
  Yolo model = make_yolo("yolo11n-cls", 3, 5);
  CHECK(shapes(*model).at("model.10.linear.weight") == std::vector<int64_t>{5, 1280});
  testing::check_reference_outputs(
      *model, [&](const torch::Tensor& input) { return model->forward(input); },
      reference_file("yolo11n-cls_sd.pt"),
      reference_file("yolo11n-cls.pt"));  // 40 x 56 images: no stride-32 rule for classification
}

TEST_CASE("the -cls models are classification families, apart from detection's names",
          "[classify][families]") {
  CHECK(task_of_model("yolo11n-cls") == TaskKind::classify);
  CHECK(task_of_model("yolov8x-cls") == TaskKind::classify);
  CHECK(task_of_model("yolo11n") == TaskKind::detect);
  const LogitsModel built = build_logits_model({"yolov8n-cls", 1, 3}, TaskKind::classify);
  CHECK(built.forward(torch::zeros({2, 1, 28, 28})).sizes() == torch::IntArrayRef({2, 3}));
  CHECK_THROWS_WITH(build_detector({"yolo11n-cls", 3, 3}),
                    Catch::Contains("trains task=classify, not task=detect"));
  // Ultralytics' export layout: class probabilities [B, classes].
  ModelCard card{"classify", "yolov8n-cls", {"a", "b", "c"}, 1, 32, 32};
  const std::vector<onnx_export::Dim> output = onnx_export::export_onnx(built.onnx_graph, card, {}).output;
  CHECK((output == std::vector<onnx_export::Dim>{int64_t{1}, int64_t{3}}));
}

TEST_CASE("yolo11n-cls typed as Ultralytics' docs type it trains and validates on an image folder",
          "[classify][cli][yolo11]") {
  testing::TempDir dir("yolo11-cls");
  testing::write_two_class_images(dir / "data");
  const testing::CommandResult trained = testing::run_trainer(
      "classify train model=yolo11n-cls.yaml data=" + dir.file("data") +
      " epochs=1 batch=4 imgsz=32 workers=1 plots=false -q project=" + dir.file("runs") +
      " name=cls");
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  const auto run = dir / "runs" / "cls";
  CHECK(testing::read_text(run / "args.yaml").find("model: yolo11n-cls\n") != std::string::npos);
  const Checkpoint saved = load_checkpoint(run / "weights" / "last.pt");
  CHECK(std::any_of(saved.model.begin(), saved.model.end(),
                    [](const auto& entry) { return entry.first == "model.10.linear.weight"; }));
  const testing::CommandResult val =
      testing::run_trainer("val --weights " + (run / "weights" / "last.pt").string());
  INFO(val.output);
  CHECK(val.exit_code == 0);
  CHECK(val.output.find("top1") != std::string::npos);
}

TEST_CASE("weights of another YOLO generation are refused in one readable line", "[detect][yolo11]") {
  Yolo yolo11 = make_yolo("yolo11n", 3, 80);
  const NamedTensors yolov8 = state_dict(*make_yolo("yolov8n", 3, 80));
  const std::map<std::string, torch::Tensor> weights(yolov8.begin(), yolov8.end());
  try {
    load_state_dict(*yolo11, weights, true);
    FAIL("a YOLOv8n state dict loaded into a YOLO11n");
  } catch (const UserError& error) {
    const std::string message = error.what();
    INFO(message);
    CHECK(message.find(" missing: ") != std::string::npos);
    CHECK(message.find(" of another shape: ") != std::string::npos);
    CHECK(message.find(" more") != std::string::npos);
    CHECK(message.size() < 1500);  // counts and the first few keys, not every one of ~500
  }
}

TEST_CASE("an Ultralytics yolo11n.pt is read as YOLO11n, weights and all, and predicts as typed",
          "[yolo11][ultralytics]") {
  // A whole pickled DetectionModel of YOLO11's stand-in modules under Ultralytics' class paths
  // (scripts/python/ultralytics_yolo11_fixture.py), as a run's last.pt of 8.3 holds it.
  static const testing::PythonOutput files("ultralytics_yolo11_fixture.py");
  const PretrainedWeights weights = read_pretrained(files.file("yolo11n.pt"));
  REQUIRE(weights.ultralytics);
  const UltralyticsModel& file = *weights.ultralytics;
  CHECK(file.scale == "n");
  CHECK(file.classes == 5);
  CHECK(ultralytics_architecture(file) == "yolo11n");
  const std::map<std::string, torch::Tensor> plain = read_pretrained(files.file("yolo11n_weights.pt")).tensors;
  REQUIRE(file.weights.size() == plain.size());
  for (const auto& [name, tensor] : file.weights) {
    INFO(name);
    REQUIRE(plain.count(name) == 1);
    CHECK(torch::equal(tensor, plain.at(name).to(tensor.scalar_type())));
  }
  testing::TempDir dir("yolo11-pt");
  cv::Mat image(64, 64, CV_8UC3, cv::Scalar(40, 120, 200));
  cv::imwrite(dir.file("bus.jpg"), image);
  const testing::CommandResult predicted =
      testing::run_trainer("detect predict model=" + files.file("yolo11n.pt") + " source=" + dir.file("bus.jpg") +
                           " project=" + dir.file("runs"));
  INFO(predicted.output);
  CHECK(predicted.exit_code == 0);
  CHECK(predicted.output.find("bus.jpg") != std::string::npos);
}

TEST_CASE("Ultralytics' -cls files are read as their generation's classifier and train, validate and predict",
          "[yolo11][ultralytics][classify]") {
  // Whole pickled ClassificationModels of the stand-in modules under Ultralytics' class paths
  // (scripts/python/ultralytics_yolo11_fixture.py), as a released yolo11n-cls.pt holds one.
  static const testing::PythonOutput files("ultralytics_yolo11_fixture.py");
  for (const std::string name : {"yolo11n-cls", "yolo26n-cls", "yolov8n-cls"}) {
    INFO(name);
    const PretrainedWeights weights = read_pretrained(files.file(name + ".pt"));
    REQUIRE(weights.ultralytics);
    const UltralyticsModel& file = *weights.ultralytics;
    CHECK(file.classifies);
    CHECK(file.classes == 2);
    CHECK(file.names == std::vector<std::string>{"bright", "dark"});
    // YOLO11-cls and YOLO26-cls share one layout: the file's yaml_file tells them apart.
    CHECK(ultralytics_architecture(file) == name);
    const std::map<std::string, torch::Tensor> plain = read_pretrained(files.file(name + "_weights.pt")).tensors;
    REQUIRE(file.weights.size() == plain.size());
    for (const auto& [key, tensor] : file.weights) {
      INFO(key);
      REQUIRE(plain.count(key) == 1);
      CHECK(torch::equal(tensor, plain.at(key).to(tensor.scalar_type())));
    }
  }
  testing::TempDir dir("yolo-cls-pt");
  testing::write_two_class_images(dir / "data", {8, 4, 32, 5});
  const std::string model = files.file("yolo26n-cls.pt");
  const testing::CommandResult predicted =
      testing::run_trainer("classify predict model=" + model + " source=" + dir.file("data/val/dark"));
  INFO(predicted.output);
  CHECK(predicted.exit_code == 0);
  CHECK(predicted.output.find("0.png: ") != std::string::npos);
  const testing::CommandResult validated =
      testing::run_trainer("classify val model=" + model + " data=" + dir.file("data") + " imgsz=32");
  INFO(validated.output);
  CHECK(validated.exit_code == 0);
  CHECK(validated.output.find("top1") != std::string::npos);
  const testing::CommandResult trained =
      testing::run_trainer("classify train model=" + model + " data=" + dir.file("data") + " imgsz=32 epochs=1 "
                           "batch=4 workers=1 project=" + dir.file("runs") + " name=tuned");
  INFO(trained.output);
  CHECK(trained.exit_code == 0);
  CHECK(testing::read_text(dir / "runs" / "tuned" / "args.yaml").find("model: yolo26n-cls") != std::string::npos);
}

TEST_CASE("an Ultralytics .pt of a user's own model yaml is built from the yaml dict it carries",
          "[yolo11][ultralytics]") {
  // YOLO11n's layout with two C3k2 blocks at layer 2 (scripts/python/ultralytics_yolo11_fixture.py):
  // by its layer keys alone it would pass for yolo11n, whose weights it does not fit.
  static const testing::PythonOutput files("ultralytics_yolo11_fixture.py");
  const PretrainedWeights released = read_pretrained(files.file("yolo11n.pt"));
  REQUIRE(released.ultralytics);
  CHECK(ultralytics_build(*released.ultralytics).model == "yolo11n");
  CHECK(ultralytics_build(*released.ultralytics).definition.empty());

  const PretrainedWeights weights = read_pretrained(files.file("yolo11n-deep.pt"));
  REQUIRE(weights.ultralytics);
  const UltralyticsModel& file = *weights.ultralytics;
  CHECK(ultralytics_architecture(file) == "yolo11n");
  const UltralyticsBuild build = ultralytics_build(file);
  CHECK(build.model == "yolo11n-deep.yaml");
  CHECK(build.task == TaskKind::detect);
  const YoloDefinition definition = parse_yolo_definition(build.definition, build.model);
  REQUIRE(definition.rows.size() == 24);
  CHECK(definition.rows[2].repeats == 4);
  CHECK(definition.rows[11].args == std::vector<std::string>{"None", "2", "nearest"});
  CHECK(definition.rows.back().args == std::vector<std::string>{"5"});  // nc, as parse_model left it
  CHECK(definition.scale == "n");
  Yolo model = make_yolo(build.model, 3, 5, build.definition);
  load_state_dict(*model, read_pretrained(files.file("yolo11n-deep_weights.pt")).tensors, true);

  // Through the binary: predicted from, and trained from, with no yolo11n-deep.yaml anywhere; the
  // run's checkpoint carries the definition on.
  testing::TempDir dir("yolo11-deep");
  REQUIRE(testing::run_trainer("data synth-detect --out " + dir.file("shapes") + " --train 8 --val 4 --imgsz 64")
              .exit_code == 0);
  const testing::CommandResult predicted = testing::run_trainer(
      "detect predict model=" + files.file("yolo11n-deep.pt") + " source=" + dir.file("shapes/images/val") +
      " project=" + dir.file("runs"));
  INFO(predicted.output);
  CHECK(predicted.exit_code == 0);
  // One epoch on the synthetic set from `model` (and any more arguments), as runs/`name`.
  const auto train_from = [&](const std::string& model, const std::string& name) {
    return testing::run_trainer("detect train model=" + model + " data=" + dir.file("shapes/data.yaml") +
                                " epochs=1 imgsz=64 batch=4 workers=1 max_boxes=16 warmup_epochs=0 project=" +
                                dir.file("runs") + " name=" + name);
  };
  const testing::CommandResult trained = train_from(files.file("yolo11n-deep.pt") + " -q", "deep");
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  CHECK(testing::read_text(dir / "runs" / "deep" / "args.yaml").find("model: yolo11n-deep.yaml\n") !=
        std::string::npos);
  const auto last = dir / "runs" / "deep" / "weights" / "last.pt";
  CHECK(load_checkpoint(last).card->model_definition == build.definition);
  const testing::CommandResult validated = testing::run_trainer("val --weights " + last.string());
  INFO(validated.output);
  CHECK(validated.exit_code == 0);
  CHECK(validated.output.find("mAP50-95") != std::string::npos);

  // A generation's own name stays the recipe loader's: pretrained=False trains its architecture
  // from scratch, the file unread, as Ultralytics does.
  const testing::CommandResult scratch = train_from(files.file("yolo11n.pt") + " pretrained=False", "scratch");
  INFO(scratch.output);
  CHECK(scratch.exit_code == 0);
  CHECK(scratch.output.find("the file unread") != std::string::npos);
  CHECK(scratch.output.find("pretrained: loaded") == std::string::npos);
}
