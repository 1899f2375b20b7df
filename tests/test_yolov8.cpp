// Our YOLOv8 must be Ultralytics' model key for key: same parameter counts (Ultralytics' published
// numbers), same state-dict size ("Transferred 355/355 items" for yolov8n), names and shapes, so
// its checkpoints can be mapped onto ours. No Ultralytics package exists here, so the keys are
// checked against the layer table of cfg/models/v8/yolov8.yaml worked out by hand, and the
// outputs against scripts/python/yolov8_fixture.py, YOLOv8n written in Python from Ultralytics'
// module definitions and saved as Ultralytics users export it.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "io/pretrained.h"
#include "io/state_dict.h"
#include "io/tensor_archive.h"
#include "models/yolo_blocks.h"
#include "models/yolo.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;

namespace {

std::map<std::string, std::vector<int64_t>> shapes(const torch::nn::Module& module) {
  std::map<std::string, std::vector<int64_t>> out;
  for (const auto& [name, tensor] : state_dict(module)) out[name] = tensor.sizes().vec();
  return out;
}

std::string ultralytics_file(const std::string& name) {
  static const testing::PythonOutput fixture("yolov8_fixture.py");
  return fixture.file(name);
}

}  // namespace

TEST_CASE("yolov8 n/s/m have Ultralytics' parameter and state-dict entry counts at 80 classes", "[detect]") {
  const auto [name, parameters, entries] = GENERATE(table<std::string, int64_t, size_t>({
      {"yolov8n", 3'157'200, 355},
      {"yolov8s", 11'166'560, 355},
      {"yolov8m", 25'902'640, 475},
  }));
  INFO(name);
  const Yolo model = make_yolo(name, 3, 80);
  CHECK(testing::parameter_count(*model) == parameters);  // the DFL projection's 16 included, as Ultralytics counts
  CHECK(state_dict(*model).size() == entries);
}

TEST_CASE("yolov8n has Ultralytics' keys and shapes layer by layer", "[detect]") {
  const Yolo model = make_yolo("yolov8n", 3, 80);
  const auto keys = shapes(*model);
  const auto shape_of = [&](const std::string& key) {
    INFO(key);
    REQUIRE(keys.count(key) == 1);
    return keys.at(key);
  };
  // Output channels per layer (cfg channels x 0.25): Conv layers end in conv, C2f and SPPF in cv2;
  // the Concat layers' widths show as the next layer's cv1 input; Upsample (10, 13) has no keys.
  const std::vector<std::pair<int, int64_t>> outputs{{0, 16},  {1, 32},   {2, 32},   {3, 64},  {4, 64},   {5, 128},
                                                     {6, 128}, {7, 256},  {8, 256},  {9, 256}, {12, 128}, {15, 64},
                                                     {16, 64}, {18, 128}, {19, 128}, {21, 256}};
  for (const auto& [layer, channels] : outputs) {
    const std::string prefix = "model." + std::to_string(layer);
    const std::string key = keys.count(prefix + ".conv.weight") ? prefix + ".conv.weight" : prefix + ".cv2.conv.weight";
    CHECK(shape_of(key)[0] == channels);
  }
  const std::vector<std::pair<int, int64_t>> concatenated{{11, 384}, {14, 192}, {17, 192}, {20, 384}};
  for (const auto& [layer, channels] : concatenated) {
    CHECK(shape_of("model." + std::to_string(layer + 1) + ".cv1.conv.weight")[1] == channels);
  }
  for (const std::string layer : {"10", "11", "13", "14", "17", "20"}) {
    for (const auto& [key, shape] : keys) CHECK(key.rfind("model." + layer + ".", 0) != 0);
  }

  const std::vector<std::pair<std::string, std::vector<int64_t>>> expected{
      {"model.0.conv.weight", {16, 3, 3, 3}},
      {"model.0.bn.weight", {16}},
      {"model.0.bn.running_mean", {16}},
      {"model.0.bn.running_var", {16}},
      {"model.0.bn.num_batches_tracked", {}},
      {"model.2.cv1.conv.weight", {32, 32, 1, 1}},  // C2f: 2 x hidden 16
      {"model.2.m.0.cv1.conv.weight", {16, 16, 3, 3}},
      {"model.2.m.0.cv2.bn.bias", {16}},
      {"model.2.cv2.conv.weight", {32, 48, 1, 1}},      // (2 + 1 repeat) x 16
      {"model.4.m.1.cv2.conv.weight", {32, 32, 3, 3}},  // 6 x 0.33 -> 2 repeats
      {"model.4.cv2.conv.weight", {64, 128, 1, 1}},
      {"model.9.cv1.conv.weight", {128, 256, 1, 1}},  // SPPF halves, then concatenates 4
      {"model.9.cv2.conv.weight", {256, 512, 1, 1}},
      {"model.22.cv2.0.0.conv.weight", {64, 64, 3, 3}},  // box branch width max(16, 64/4, 64)
      {"model.22.cv2.1.0.conv.weight", {64, 128, 3, 3}},
      {"model.22.cv2.2.0.conv.weight", {64, 256, 3, 3}},
      {"model.22.cv2.0.1.bn.running_var", {64}},
      {"model.22.cv2.0.2.weight", {64, 64, 1, 1}},
      {"model.22.cv2.2.2.bias", {64}},
      {"model.22.cv3.0.0.conv.weight", {80, 64, 3, 3}},  // class branch width max(64, min(80, 100))
      {"model.22.cv3.1.0.bn.weight", {80}},
      {"model.22.cv3.2.2.weight", {80, 80, 1, 1}},
      {"model.22.cv3.2.2.bias", {80}},
      {"model.22.dfl.conv.weight", {1, 16, 1, 1}},
  };
  for (const auto& [key, shape] : expected) CHECK(shape_of(key) == shape);
  CHECK(keys.count("model.4.m.2.cv1.conv.weight") == 0);
  CHECK(keys.count("model.22.dfl.conv.bias") == 0);

  // Python's order: the first key is the stem's, the last the DFL projection (no Detect buffers).
  const auto ordered = state_dict(*model);
  CHECK(ordered.front().first == "model.0.conv.weight");
  CHECK(ordered.back().first == "model.22.dfl.conv.weight");
}

TEST_CASE("yolov8 scaling caps channels and rounds repeats as Ultralytics", "[detect]") {
  // m: width 0.75 with max 768 -> P5 layers min(1024, 768) x 0.75 = 576; depth 0.67: 3 -> 2, 6 -> 4.
  const auto keys = shapes(*make_yolo("yolov8m", 3, 80));
  CHECK(keys.at("model.7.conv.weight")[0] == 576);
  CHECK(keys.at("model.6.cv2.conv.weight") == std::vector<int64_t>{384, 6 * 192, 1, 1});
  CHECK(keys.count("model.6.m.3.cv1.conv.weight") == 1);
  CHECK(keys.count("model.6.m.4.cv1.conv.weight") == 0);
  CHECK(keys.count("model.2.m.1.cv1.conv.weight") == 1);
  CHECK(keys.count("model.2.m.2.cv1.conv.weight") == 0);
}

TEST_CASE("yolov8 follows the class count and input channels", "[detect]") {
  const auto keys = shapes(*make_yolo("yolov8n", 1, 3));
  CHECK(keys.at("model.0.conv.weight") == std::vector<int64_t>{16, 1, 3, 3});
  CHECK(keys.at("model.22.cv3.0.0.conv.weight") == std::vector<int64_t>{64, 64, 3, 3});  // max(64, 3)
  CHECK(keys.at("model.22.cv3.1.2.weight") == std::vector<int64_t>{3, 64, 1, 1});
  // More than 100 classes: the class branch width stops at max(ch0, 100).
  CHECK(shapes(*make_yolo("yolov8n", 3, 300)).at("model.22.cv3.0.0.bn.weight") == std::vector<int64_t>{100});
}

TEST_CASE("yolov8 returns one raw output per stride in training and evaluation", "[detect]") {
  Yolo model = make_yolo("yolov8n", 1, 3);
  const torch::Tensor images = torch::randn({2, 1, 64, 64});
  const bool training = GENERATE(true, false);
  model->train(training);
  torch::NoGradGuard no_grad;
  const std::vector<torch::Tensor> levels = model->forward(images);
  REQUIRE(levels.size() == 3);
  CHECK(levels[0].sizes() == torch::IntArrayRef({2, 67, 8, 8}));
  CHECK(levels[1].sizes() == torch::IntArrayRef({2, 67, 4, 4}));
  CHECK(levels[2].sizes() == torch::IntArrayRef({2, 67, 2, 2}));
  CHECK(model->strides() == std::vector<double>{8, 16, 32});
  CHECK_THROWS(model->forward(torch::randn({1, 1, 48, 64})));
}

TEST_CASE("yolov8 starts from Ultralytics' initialisation", "[detect]") {
  const int64_t classes = 5;
  Yolo model = make_yolo("yolov8n", 3, classes);
  const torch::Tensor dfl = model->head().dfl->conv->weight;
  CHECK(torch::equal(dfl.flatten(), torch::arange(16, torch::kFloat)));
  CHECK_FALSE(dfl.requires_grad());
  const std::vector<double> strides{8, 16, 32};
  for (size_t level = 0; level < strides.size(); ++level) {
    const auto last = [&](const torch::nn::ModuleList& branches) {
      return branches->ptr<torch::nn::SequentialImpl>(level)->ptr<torch::nn::Conv2dImpl>(2)->bias;
    };
    CHECK(torch::all(last(model->head().cv2) == 1).item<bool>());
    const double prior = std::log(5.0 / classes / std::pow(640 / strides[level], 2));
    CHECK(torch::allclose(last(model->head().cv3), torch::full({classes}, prior)));
  }
  int64_t norms = 0;
  for (const auto& module : model->modules(/*include_self=*/false)) {
    if (const auto* bn = module->as<torch::nn::BatchNorm2d>()) {
      ++norms;
      CHECK(bn->options.eps() == 1e-3);
      CHECK(bn->options.momentum().value() == 0.03);
    }
  }
  CHECK(norms == 57);  // one per Conv: 7 downsamples, 36 in C2fs, 2 in SPPF, 12 in the head
}

TEST_CASE("cloned yolov8 models hold equal but independent weights", "[detect]") {
  // Training mode: freshly initialised, the eval-mode outputs are all but the head's biases.
  Yolo model = make_yolo("yolov8n", 3, 2);
  auto copy = std::dynamic_pointer_cast<YoloImpl>(model->clone());
  REQUIRE(copy != nullptr);
  const torch::Tensor images = torch::randn({2, 3, 64, 64});
  torch::NoGradGuard no_grad;
  CHECK(torch::equal(copy->forward(images)[1], model->forward(images)[1]));
  copy->model->ptr<yolo::ConvImpl>(0)->conv->weight.zero_();
  CHECK(model->model->ptr<yolo::ConvImpl>(0)->conv->weight.abs().sum().item<double>() > 0);
  CHECK_FALSE(torch::equal(copy->forward(images)[1], model->forward(images)[1]));
  CHECK(torch::equal(copy->head().dfl->conv->weight.flatten(), torch::arange(16, torch::kFloat)));
}

TEST_CASE("make_yolo rejects unknown names with a suggestion", "[detect]") {
  CHECK(yolo_model_names() ==
        std::vector<std::string>{"yolov5nu",    "yolov5su",    "yolov5mu",    "yolov5lu",    "yolov5xu",
                                 "yolov8n",     "yolov8s",     "yolov8m",     "yolov8l",     "yolov8x",
                                 "yolo11n",     "yolo11s",     "yolo11m",     "yolo11l",     "yolo11x",
                                 "yolo26n",     "yolo26s",     "yolo26m",     "yolo26l",     "yolo26x",
                                 "yolov8n-cls", "yolov8s-cls", "yolov8m-cls", "yolov8l-cls", "yolov8x-cls",
                                 "yolo11n-cls", "yolo11s-cls", "yolo11m-cls", "yolo11l-cls", "yolo11x-cls",
                                 "yolo26n-cls", "yolo26s-cls", "yolo26m-cls", "yolo26l-cls", "yolo26x-cls"});
  CHECK_THROWS_AS(make_yolo("yolov9n", 3, 80), UserError);
  CHECK_THROWS_WITH(make_yolo("yolov8q", 3, 80), Catch::Contains("yolov8"));
  CHECK_THROWS_AS(make_yolo("yolov8n", 3, 0), UserError);
}

TEST_CASE("an Ultralytics state dict export loads with pretrained= and gives Ultralytics' outputs", "[detect]") {
  Yolo model = make_yolo("yolov8n", 3, 5);
  const std::string exported = ultralytics_file("yolov8n_sd.pt");
  CHECK(read_pretrained(exported).tensors.size() == state_dict(*model).size());
  testing::check_reference_outputs(
      *model, [&](const torch::Tensor& input) { return model->forward(input); }, exported,
      ultralytics_file("yolov8n.pt"));
}
