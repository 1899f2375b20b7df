// Model families by registration: the registered records give the recipe loader its names, the
// tasks their models, export its graph writers and Ultralytics checkpoints their architecture.
#include <catch2/catch.hpp>

#include <algorithm>

#include "config/settings.h"
#include "families/model_family.h"
#include "families/recipes.h"
#include "util/error.h"

using namespace trainer;

TEST_CASE("the registered families name their models, tasks and defaults", "[families][config]") {
  CHECK(model_families_text(model_catalog()) ==
        "resnet18/34/50/101/152 (task=classify), crnn (task=ocr), yolov8n/s/m/l/x (task=detect), yolo11n/s/m/l/x "
        "(task=detect), yolo26n/s/m/l/x (task=detect), yolov5nu/su/mu/lu/xu (task=detect), a model .yaml of "
        "Ultralytics' format (task=detect), yolov8n/s/m/l/x-cls (task=classify), yolo11n/s/m/l/x-cls "
        "(task=classify), yolo26n/s/m/l/x-cls (task=classify) or a -cls model .yaml (task=classify)");
  CHECK(model_catalog().size() == model_families().size());
  CHECK(task_of_model("resnet50") == TaskKind::classify);
  CHECK(task_of_model("crnn") == TaskKind::ocr);
  CHECK(task_of_model("yolov8x") == TaskKind::detect);
  CHECK_FALSE(task_of_model("vgg16"));
  CHECK(default_model(model_catalog(), TaskKind::classify) == "resnet18");
  CHECK(default_model(model_catalog(), TaskKind::ocr) == "crnn");
  CHECK(default_model(model_catalog(), TaskKind::detect) == "yolov8n");
  CHECK_THROWS_WITH(family_of("vgg16"),
                    Catch::Contains("unknown model 'vgg16'") && Catch::Contains("crnn (task=ocr)"));
}

namespace {

std::vector<int64_t> shape_of(const BuiltModel& model, const std::string& parameter) {
  const torch::Tensor* found = model.module->named_parameters().find(parameter);
  REQUIRE(found != nullptr);
  return found->sizes().vec();
}

}  // namespace

TEST_CASE("a family builds its models as their task drives them and refuses names it has none of", "[families]") {
  const LogitsModel resnet = build_logits_model({"resnet34", 1, 4}, TaskKind::classify);
  CHECK(resnet.in_channels == 1);
  CHECK(shape_of(resnet, "conv1.weight") == std::vector<int64_t>{64, 1, 7, 7});
  CHECK(shape_of(resnet, "layer3.5.conv1.weight") == std::vector<int64_t>{256, 256, 3, 3});  // 34: six blocks
  CHECK(shape_of(resnet, "fc.weight") == std::vector<int64_t>{4, 512});
  CHECK(resnet.forward(torch::zeros({2, 1, 32, 32})).sizes() == torch::IntArrayRef({2, 4}));
  OcrSettings ocr;
  ocr.output_channel = 32;
  ocr.hidden_size = 16;
  const LogitsModel crnn = build_logits_model({"crnn", 1, 11, NormKind::batch, &ocr}, TaskKind::ocr);
  CHECK(shape_of(crnn, "SequenceModeling.0.rnn.weight_ih_l0") == std::vector<int64_t>{64, 32});
  CHECK(shape_of(crnn, "Prediction.weight") == std::vector<int64_t>{11, 16});
  const DetectorModel yolo = build_detector({"yolov8s", 3, 2});
  CHECK(yolo.strides == std::vector<double>{8, 16, 32});
  CHECK(yolo.reg_max == 16);
  CHECK(yolo.forward(torch::zeros({1, 3, 64, 64})).at(0).size(1) == 4 * 16 + 2);
  CHECK_THROWS_WITH(build_logits_model({"resnet99", 3, 2}, TaskKind::classify),
                    Catch::Contains("unknown model 'resnet99'"));
  CHECK_THROWS_WITH(build_detector({"vgg16", 3, 2}), Catch::Contains("unknown model 'vgg16'"));
  CHECK_THROWS_WITH(build_logits_model({"resnet18", 3, 2}, TaskKind::ocr),
                    Catch::Contains("model 'resnet18' trains task=classify, not task=ocr"));
  CHECK_THROWS_WITH(build_detector({"crnn", 3, 2}), Catch::Contains("trains task=ocr, not task=detect"));
}

TEST_CASE("Ultralytics checkpoints are recognised by their family", "[families][ultralytics]") {
  UltralyticsModel file;
  file.type = "ultralytics.nn.tasks.DetectionModel";
  const DetectorModel yolov8m = build_detector({"yolov8m", 3, 80});
  for (const auto& entry : yolov8m.module->named_parameters()) file.weights.emplace_back(entry.key(), entry.value());
  CHECK(ultralytics_architecture(file).empty());  // no scale: no model to build
  file.scale = "m";
  CHECK(ultralytics_architecture(file) == "yolov8m");
  file.weights.clear();  // a layout no family has (the yolo11 tests show YOLO11's)
  CHECK(ultralytics_architecture(file).empty());
}

TEST_CASE("export writes a built model with the graph its family bound to it", "[families][onnx]") {
  const LogitsModel resnet = build_logits_model({"resnet18", 3, 2}, TaskKind::classify);
  resnet.module->eval();
  ModelCard card;
  card.task = "classify";
  card.model_name = "resnet18";
  card.labels = {"a", "b"};
  card.channels = 3;
  card.height = card.width = 32;
  const onnx_export::OnnxFile file = onnx_export::export_onnx(resnet.onnx_graph, card, {});
  CHECK_FALSE(file.bytes.empty());
  CHECK((file.output == std::vector<onnx_export::Dim>{int64_t{1}, int64_t{2}}));
  CHECK(std::find(file.operators.begin(), file.operators.end(), "GlobalAveragePool") != file.operators.end());
}
