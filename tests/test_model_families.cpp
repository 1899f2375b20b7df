// Model families by registration: the registered records give the recipe loader its names, the
// tasks their models, export its graph writers and Ultralytics checkpoints their architecture.
#include <catch2/catch.hpp>

#include "families/model_family.h"
#include "families/recipes.h"
#include "models/crnn.h"
#include "models/resnet.h"
#include "models/yolov8.h"
#include "util/error.h"

using namespace trainer;

TEST_CASE("the registered families name their models, tasks and defaults", "[families][config]") {
  CHECK(model_families_text(model_catalog()) ==
        "resnet18/34/50 (task=classify), crnn (task=ocr) or yolov8n/s/m/l/x (task=detect)");
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

TEST_CASE("a family builds its models and refuses names it has none of", "[families]") {
  ModelRequest request{"resnet34", 1, 4};
  const auto resnet = build_model_as<ResNetImpl>(request);
  CHECK(resnet->options.depth() == 34);
  CHECK(resnet->options.in_channels() == 1);
  CHECK(resnet->options.classes() == 4);
  OcrSettings ocr;
  ocr.output_channel = 32;
  ocr.hidden_size = 16;
  const auto crnn = build_model_as<CrnnImpl>({"crnn", 1, 11, NormKind::batch, &ocr});
  CHECK(crnn->options.output_channel() == 32);
  CHECK(crnn->options.hidden_size() == 16);
  CHECK(build_model_as<YOLOv8Impl>({"yolov8s", 3, 2})->options.classes() == 2);
  CHECK_THROWS_WITH(build_model({"resnet99", 3, 2}), Catch::Contains("unknown model 'resnet99'"));
  CHECK_THROWS_AS(build_model_as<CrnnImpl>({"resnet18", 3, 2}), UserError);
}

TEST_CASE("Ultralytics checkpoints are recognised by their family", "[families][ultralytics]") {
  UltralyticsModel file;
  file.type = "ultralytics.nn.tasks.DetectionModel";
  CHECK(ultralytics_architecture(file).empty());  // no scale: no model to build
  file.scale = "m";
  CHECK(ultralytics_architecture(file) == "yolov8m");
}

TEST_CASE("export writes a model with its family's graph, named by the card", "[families][onnx]") {
  ResNet resnet = make_resnet("resnet18", 3, 2, NormKind::batch);
  resnet->eval();
  ModelCard card;
  card.task = "classify";
  card.model_name = "resnet18";
  card.labels = {"a", "b"};
  card.channels = 3;
  card.height = card.width = 32;
  CHECK_FALSE(export_family_onnx(*resnet, card, {}).bytes.empty());
  ModelCard other = card;
  other.model_name = "yolov8n";
  CHECK_THROWS_WITH(export_family_onnx(*resnet, other, {}),
                    Catch::Contains("the model is not a YOLOv8"));
  other.model_name = "vgg16";
  CHECK_THROWS_WITH(export_family_onnx(*resnet, other, {}),
                    Catch::Contains("unknown model 'vgg16'"));
}
