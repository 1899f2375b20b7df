// YOLO11 detection must be Ultralytics' model key for key: the parameter counts Ultralytics
// publishes in cfg/models/11/yolo11.yaml, and the keys, shapes and outputs of
// scripts/python/yolo11_fixture.py, YOLO11 written in Python from Ultralytics' module definitions
// and built by a transcription of parse_model (independent of the C++ layer table).
#include <catch2/catch.hpp>

#include <map>

#include "families/model_family.h"
#include "families/recipes.h"
#include "io/pretrained.h"
#include "io/state_dict.h"
#include "io/tensor_archive.h"
#include "io/ultralytics_checkpoint.h"
#include "models/yolo_detector.h"
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

TEST_CASE("yolo11 n/s/m/l/x have Ultralytics' parameter counts at 80 classes", "[detect][yolo11]") {
  // Ultralytics' own summaries, from the comments of cfg/models/11/yolo11.yaml.
  const auto [name, parameters] = GENERATE(table<std::string, int64_t>({
      {"yolo11n", 2'624'080},
      {"yolo11s", 9'458'752},
      {"yolo11m", 20'114'688},
      {"yolo11l", 25'372'160},
      {"yolo11x", 56'966'176},
  }));
  INFO(name);
  const YoloDetector model = make_yolo_detector(name, 3, 80);
  CHECK(testing::parameter_count(*model) == parameters);
  const c10::impl::GenericDict counts = read_archive(reference_file("counts.pt")).toGenericDict();
  CHECK(counts.at(name).toInt() == parameters);  // the Python reference agrees with Ultralytics
  CHECK(static_cast<int64_t>(state_dict(*model).size()) == counts.at(name + ".entries").toInt());
}

TEST_CASE("yolo11n has the reference's state-dict keys and shapes", "[detect][yolo11]") {
  const YoloDetector model = make_yolo_detector("yolo11n", 3, 5);
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
  YoloDetector model = make_yolo_detector("yolo11n", 3, 5);
  testing::check_reference_outputs(
      *model, [&](const torch::Tensor& input) { return model->forward(input); }, reference_file("yolo11n_sd.pt"),
      reference_file("yolo11n.pt"));
}

TEST_CASE("yolo11 is a registered detection family, told from YOLOv8 by its layout", "[detect][yolo11][families]") {
  CHECK(task_of_model("yolo11s") == TaskKind::detect);
  const DetectorModel built = build_detector({"yolo11n", 3, 2});
  CHECK(built.strides == std::vector<double>{8, 16, 32});
  CHECK(built.forward(torch::zeros({1, 3, 64, 64})).at(2).sizes() == torch::IntArrayRef({1, 4 * 16 + 2, 2, 2}));
  CHECK_THROWS_WITH(make_yolo_detector("yolo11q", 3, 80), Catch::Contains("yolo11n"));
  ModelCard card{"detect", "yolo11n", {"a", "b"}, 3, 64, 64};
  CHECK_THROWS_WITH(onnx_export::export_onnx(built.onnx_graph, card, {}),
                    Catch::Contains("YOLO11's graph") && Catch::Contains("not written yet"));

  UltralyticsModel file;
  file.type = "ultralytics.nn.tasks.DetectionModel";
  file.scale = "n";
  const std::map<std::string, torch::Tensor> yolo11_weights = read_pretrained(reference_file("yolo11n_sd.pt")).tensors;
  file.weights.assign(yolo11_weights.begin(), yolo11_weights.end());
  CHECK(ultralytics_architecture(file) == "yolo11n");
  file.weights = state_dict(*make_yolo_detector("yolov8n", 3, 5));
  CHECK(ultralytics_architecture(file) == "yolov8n");
  file.weights = {};
  CHECK(ultralytics_architecture(file).empty());  // a layout neither family has: nothing is built
}
