// YOLO models built from Ultralytics' model-definition format: the built-in YOLOv5u and YOLO26
// must be Ultralytics' models key for key (their parameter counts are checked with YOLO11's in
// test_yolo11.cpp; here the keys, shapes and outputs of scripts/python/yolo11_fixture.py, written
// from 8.4's module sources and a transcription of its parse_model), and a user's own file builds,
// or fails naming its line.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "families/model_family.h"
#include "families/recipes.h"
#include "io/pretrained.h"
#include "io/state_dict.h"
#include "io/tensor_archive.h"
#include "models/yolo.h"
#include "models/yolo_attention.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;

namespace {

std::string reference_file(const std::string& name) {
  static const testing::PythonOutput fixture("yolo11_fixture.py");
  return fixture.file(name);
}

int64_t reference_count(const std::string& key) {
  return read_archive(reference_file("counts.pt")).toGenericDict().at(key).toInt();
}

void check_reference_keys(const Yolo& model, const std::string& reference) {
  const auto expected = read_pretrained(reference_file(reference)).tensors;
  const NamedTensors actual = state_dict(*model);
  CHECK(actual.size() == expected.size());
  for (const auto& [key, tensor] : actual) {
    INFO(key);
    REQUIRE(expected.count(key) == 1);
    CHECK(expected.at(key).sizes() == tensor.sizes());
  }
}

// A file in the test's folder holding `text`.
std::string definition_file(const testing::TempDir& dir, const std::string& name,
                            const std::string& text) {
  testing::write_text(dir / name, text);
  return dir.file(name);
}

}  // namespace

TEST_CASE("the -cls classifiers of YOLO26 are YOLO11-cls's", "[classify][yolo26]") {
  // Ultralytics' yolo26-cls.yaml summary: 2,812,104 parameters for n at its nc of 1000.
  CHECK(testing::parameter_count(*make_yolo("yolo26n-cls", 3, 1000)) == 2'812'104);
  CHECK(testing::parameter_count(*make_yolo("yolo26m-cls", 3, 80)) ==
        reference_count("yolo11m-cls"));
}

TEST_CASE("yolo26n has the end-to-end head, no DFL, and the reference's outputs",
          "[detect][yolo26]") {
  Yolo model = make_yolo("yolo26n", 3, 5);
  check_reference_keys(model, "yolo26n_sd.pt");
  const NamedTensors keys = state_dict(*model);
  const auto has = [&](const std::string& key) {
    return std::any_of(keys.begin(), keys.end(),
                       [&](const auto& entry) { return entry.first == key; });
  };
  CHECK(has("model.23.one2one_cv3.2.2.bias"));
  CHECK(has("model.22.m.0.1.attn.qkv.conv.weight"));  // C3k2's attention block
  CHECK_FALSE(has("model.23.dfl.conv.weight"));       // reg_max 1: Ultralytics' nn.Identity
  CHECK_FALSE(model->model->ptr<yolo::SPPFImpl>(9)->cv1->activation);  // YOLO26's SPPF
  // The one-to-one branch starts as a copy of the one-to-many one, as Ultralytics deep-copies it.
  const yolo::DetectImpl& head = model->head();
  CHECK(torch::equal(
      head.one2one_cv2->ptr<torch::nn::SequentialImpl>(0)->ptr<yolo::ConvImpl>(0)->conv->weight,
      head.cv2->ptr<torch::nn::SequentialImpl>(0)->ptr<yolo::ConvImpl>(0)->conv->weight));
  testing::check_reference_outputs(
      *model, [&](const torch::Tensor& input) { return model->forward(input); },
      reference_file("yolo26n_sd.pt"), reference_file("yolo26n.pt"));
  CHECK(model->forward(torch::zeros({1, 3, 64, 64})).size() == 6);  // one-to-many, then one-to-one
}

TEST_CASE("yolo26n's gradients equal the reference's: the one-to-one branch reads detached features",
          "[detect][yolo26]") {
  Yolo model = make_yolo("yolo26n", 3, 5);
  load_pretrained(*model, reference_file("yolo26n_sd.pt"));
  model->eval();
  const c10::impl::GenericDict file = read_archive(reference_file("yolo26n_grads.pt")).toGenericDict();
  const std::vector<torch::Tensor> probes = testing::tensor_list(file.at("probes"));
  const std::vector<torch::Tensor> outputs = model->forward(file.at("input").toTensor());
  REQUIRE(outputs.size() == probes.size());
  torch::Tensor total = torch::zeros({});
  for (size_t level = 0; level < outputs.size(); ++level) total = total + (outputs[level] * probes[level]).sum();
  total.backward();
  const c10::impl::GenericDict expected = file.at("gradients").toGenericDict();
  size_t compared = 0;
  for (const auto& entry : model->named_parameters()) {
    INFO(entry.key());
    REQUIRE(expected.contains(entry.key()));
    REQUIRE(entry.value().grad().defined());
    const torch::Tensor want = expected.at(entry.key()).toTensor();
    const double scale = want.abs().max().item<double>();
    CHECK(torch::allclose(entry.value().grad(), want, 1e-3, 1e-4 * std::max(scale, 1.0)));
    ++compared;
  }
  CHECK(compared == expected.size());
}

TEST_CASE("yolov5nu with the reference's weights gives its outputs", "[detect][yolo26]") {
  Yolo model = make_yolo("yolov5nu", 3, 5);
  CHECK(model->model->ptr<yolo::SPPFImpl>(9)->cv1->activation);  // a pre-YOLO26 SPPF row
  // Conv [64, 6, 2, 2]: the given padding, not autopad's 3.
  const auto padding = model->model->ptr<yolo::ConvImpl>(0)->conv->options.padding();
  CHECK((*c10::get<torch::ExpandingArray<2>>(padding))[0] == 2);
  check_reference_keys(model, "yolov5nu_sd.pt");
  testing::check_reference_outputs(
      *model, [&](const torch::Tensor& input) { return model->forward(input); },
      reference_file("yolov5nu_sd.pt"), reference_file("yolov5nu.pt"));
  CHECK(testing::parameter_count(*make_yolo("yolov5n", 3, 80)) == 2'654'816);  // the yaml's name
}

TEST_CASE("Ultralytics' model names give the definition and scale they name", "[detect][yolo26]") {
  CHECK(parse_yolo_name("yolo11n").stem == "yolo11");
  CHECK(parse_yolo_name("yolo11n").scale == "n");
  CHECK(parse_yolo_name("yolov5su").stem == "yolov5");
  CHECK(parse_yolo_name("yolo26m-cls").stem == "yolo26-cls");
  CHECK(parse_yolo_name("yolo26m-cls").scale == "m");
  CHECK(parse_yolo_name("yolov8nu").stem.empty());  // only YOLOv5's weights carry the u
  CHECK(parse_yolo_name("resnet18").stem.empty());
}

TEST_CASE("a user's model definition builds with its own depth, or fails naming its line",
          "[detect][yolo26]") {
  testing::TempDir dir("yolo-definition");
  // YOLO11 at another depth: its text with every repeat doubled, read at scale n from the name.
  std::string deeper(builtin_yolo_definition("yolo11")->text);
  for (size_t at = deeper.find(", 2, C3k2"); at != std::string::npos;
       at = deeper.find(", 2, C3k2", at + 1)) {
    deeper.replace(at, 9, ", 4, C3k2");
  }
  const std::string path = definition_file(dir, "my-yolo11n-deep.yaml", deeper);
  const Yolo model = make_yolo(path, 3, 80);
  CHECK(testing::parameter_count(*model) > 2'624'080);
  CHECK(model->model->ptr<yolo::C2fImpl>(2)->m->size() == 2);  // round(4 * 0.5)
  CHECK(task_of_model(path) == TaskKind::detect);
  CHECK(build_detector({path, 3, 2}).strides == std::vector<double>{8, 16, 32});

  const std::string unknown =
      definition_file(dir, "odd.yaml",
                      "nc: 2\nbackbone:\n  - [-1, 1, Conv, [16, 3, 2]]\n  - [-1, 1, GhostConv, "
                      "[32]]\nhead:\n  - [[-1], 1, Detect, [nc]]\n");
  CHECK_THROWS_WITH(make_yolo(unknown, 3, 2), Catch::Contains("odd.yaml:4") &&
                                                  Catch::Contains("unknown module 'GhostConv'") &&
                                                  Catch::Contains("C3k2"));
  const std::string bad_arg = definition_file(
      dir, "bad.yaml",
      "backbone:\n  - [-1, 1, Conv, [sixteen, 3, 2]]\nhead:\n  - [-1, 1, Classify, [nc]]\n");
  CHECK_THROWS_WITH(make_yolo(bad_arg, 3, 2),
                    Catch::Contains("bad.yaml:2") && Catch::Contains("'sixteen'"));
  CHECK(task_of_model(bad_arg) == TaskKind::classify);
  const std::string no_head =
      definition_file(dir, "nohead.yaml", "backbone:\n  - [-1, 1, Conv, [16, 3, 2]]\n");
  CHECK_THROWS_WITH(make_yolo(no_head, 3, 2), Catch::Contains("'head' list"));
  CHECK_THROWS_WITH(make_yolo(builtin_yolo_definition("yolo11"), "q", 3, 2),
                    Catch::Contains("no scale 'q'") && Catch::Contains("n, s, m, l, x"));
}

TEST_CASE("Ultralytics files of YOLO26 and YOLOv5u are told by their layers' layout",
          "[detect][yolo26]") {
  UltralyticsModel file;
  file.type = "ultralytics.nn.tasks.DetectionModel";
  file.scale = "n";
  const auto weights_of = [](const std::string& reference) {
    const auto tensors = read_pretrained(reference_file(reference)).tensors;
    return NamedTensors(tensors.begin(), tensors.end());
  };
  file.weights = weights_of("yolo26n_sd.pt");
  CHECK(ultralytics_architecture(file) == "yolo26n");
  file.weights = weights_of("yolov5nu_sd.pt");
  CHECK(ultralytics_architecture(file) == "yolov5n");
  CHECK(make_yolo("yolov5n", 3, 5)->model->size() == 25);  // the name a file gives builds
}

TEST_CASE("a model yaml's Detect takes the strides of the levels it reads", "[detect][yolo26]") {
  testing::TempDir dir("yolo-strides");
  // A P2/4 head on a short backbone: Ultralytics measures strides 4, 8, 16 for it.
  const std::string path = dir.file("p2-yolov8n.yaml");
  testing::write_text(
      path,
      "scales:\n  n: [0.33, 0.25, 1024]\nbackbone:\n"
      "  - [-1, 1, Conv, [64, 3, 2]]\n  - [-1, 1, Conv, [128, 3, 2]]\n"
      "  - [-1, 1, C2f, [128, True]]\n  - [-1, 1, Conv, [256, 3, 2]]\n"
      "  - [-1, 1, Conv, [512, 3, 2]]\n  - [-1, 1, nn.Upsample, [None, 2, nearest]]\n"
      "head:\n  - [[2, 3, 5], 1, Detect, [nc]]\n");
  Yolo model = make_yolo(path, 3, 2);
  CHECK(model->strides() == std::vector<double>{4, 8, 8});
  CHECK(model->forward(torch::zeros({1, 3, 32, 32})).at(0).sizes() ==
        torch::IntArrayRef({1, 64 + 2, 8, 8}));
}
