// freeze: layers are counted as the originals number them, a freeze touches exactly the layers it
// names, and frozen layers leave training exactly as they came in.
#include <catch2/catch.hpp>

#include "engine/trainer.h"
#include "families/recipes.h"
#include "models/crnn.h"
#include "models/resnet.h"
#include "models/trainable.h"
#include "models/yolo.h"
#include "tasks/task_factory.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;
using trainer::testing::TempDir;

namespace {

// The names of the parameters that take a gradient.
std::vector<std::string> trainable(const torch::nn::Module& model) {
  std::vector<std::string> names;
  for (const auto& item : model.named_parameters()) {
    if (item.value().requires_grad()) names.push_back(item.key());
  }
  return names;
}

bool starts_with_any(const std::string& name, const std::vector<std::string>& prefixes) {
  for (const auto& prefix : prefixes) {
    if (name.rfind(prefix + ".", 0) == 0) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("layers are counted as torchvision, EasyOCR and Ultralytics number them", "[models][freeze]") {
  CHECK(layer_names(*make_resnet("resnet18", 3, 10, NormKind::batch)) ==
        std::vector<std::string>{"conv1", "bn1", "relu", "maxpool", "layer1", "layer2", "layer3", "layer4", "avgpool",
                                 "fc"});
  CHECK(layer_names(*Crnn(CrnnOptions().output_channel(32).hidden_size(16).classes(11))) ==
        std::vector<std::string>{"FeatureExtraction", "SequenceModeling", "Prediction"});
  const std::vector<std::string> yolo = layer_names(*make_yolo("yolov8n", 3, 80));
  // Ultralytics' yolov8.yaml: 10 backbone layers, 13 head layers, Upsample and Concat included.
  REQUIRE(yolo.size() == 23);
  CHECK(yolo.front() == "model.0");
  CHECK(yolo[9] == "model.9");
  CHECK(yolo.back() == "model.22");
}

TEST_CASE("freeze turns off the gradients of the layers it names and nothing else", "[models][freeze]") {
  ResNet model = make_resnet("resnet18", 3, 10, NormKind::batch);
  const ParameterCounts before = count_parameters(*model);
  CHECK(before.trainable == before.total);

  SECTION("the first N layers") {
    // relu and maxpool count as layers, as in torchvision's children, though they hold nothing.
    CHECK(freeze_layers(*model, {5, {}}) == std::vector<std::string>{"conv1", "bn1", "relu", "maxpool", "layer1"});
    for (const auto& item : model->named_parameters()) {
      INFO(item.key());
      CHECK(item.value().requires_grad() != starts_with_any(item.key(), {"conv1", "bn1", "layer1"}));
    }
  }
  SECTION("layers by name, at any depth") {
    // "layer4.1" is one block; "fc.bias" a single tensor; neither touches layer4.0 or fc.weight.
    freeze_layers(*model, {0, {"layer4.1", "fc.bias"}});
    for (const auto& item : model->named_parameters()) {
      INFO(item.key());
      CHECK(item.value().requires_grad() != (starts_with_any(item.key(), {"layer4.1"}) || item.key() == "fc.bias"));
    }
  }
  const ParameterCounts after = count_parameters(*model);
  CHECK(after.total == before.total);
  CHECK(after.trainable < before.total);
  int64_t left = 0;
  for (const auto& name : trainable(*model)) left += model->named_parameters()[name].numel();
  CHECK(after.trainable == left);
}

TEST_CASE("freeze refuses unknown layers, too many and all of them, and then changes nothing", "[models][freeze]") {
  ResNet model = make_resnet("resnet18", 3, 10, NormKind::batch);
  const auto all = trainable(*model);
  CHECK_THROWS_WITH(freeze_layers(*model, {0, {"layer1", "layer5"}}),
                    Catch::Contains("'layer5'") &&
                        Catch::Contains("conv1, bn1, relu, maxpool, layer1, layer2, layer3, layer4, avgpool, fc"));
  // A name ends at a dot: "layer" is no layer's name, though every layerN starts with it.
  CHECK_THROWS_WITH(freeze_layers(*model, {0, {"layer"}}), Catch::Contains("'layer'"));
  CHECK_THROWS_WITH(freeze_layers(*model, {11, {}}), Catch::Contains("first 11 layers") && Catch::Contains("has 10"));
  CHECK_THROWS_WITH(freeze_layers(*model, {10, {}}), Catch::Contains("leaves no parameter"));
  // Counted, relu freezes nothing; named, it is most likely a slip.
  CHECK_THROWS_WITH(freeze_layers(*model, {0, {"relu"}}), Catch::Contains("'relu'"));
  CHECK(trainable(*model) == all);
}

TEST_CASE("freeze takes a layer count, layer indices or layer names, and round-trips", "[config][freeze]") {
  CHECK(load_settings(std::nullopt, {}).run.freeze.empty());
  const Settings counted = load_settings(std::nullopt, {"freeze=10"});
  CHECK(counted.run.freeze.first_layers == 10);
  CHECK(counted.run.freeze.layers.empty());
  TempDir dir("freeze-recipe");
  trainer::testing::write_text(dir / "r.yaml", "freeze: [FeatureExtraction, SequenceModeling.0]\n");
  const Settings named = load_settings((dir / "r.yaml").string(), {});
  CHECK(named.run.freeze.first_layers == 0);
  CHECK(named.run.freeze.layers == std::vector<std::string>{"FeatureExtraction", "SequenceModeling.0"});
  trainer::testing::write_text(dir / "args.yaml", to_yaml(named));
  CHECK(load_settings((dir / "args.yaml").string(), {}).run.freeze.layers == named.run.freeze.layers);
  CHECK(load_settings(std::nullopt, {"freeze=none"}).run.freeze.empty());
  CHECK_THROWS_WITH(load_settings(std::nullopt, {"freeze=-1"}), Catch::Contains("'freeze'"));
  // Ultralytics' list of layer indices names its model.N layers; indices and names do not mix.
  CHECK(load_settings(std::nullopt, {"freeze=[3]"}).run.freeze.layers == std::vector<std::string>{"model.3"});
  CHECK_THROWS_WITH(load_settings(std::nullopt, {"freeze=3,layer1"}), Catch::Contains("layer names"));
}

TEST_CASE("frozen layers leave training exactly as they came in", "[engine][freeze]") {
  TempDir dir("freeze-train");
  trainer::testing::write_two_class_images(dir / "data");
  const Settings settings =
      load_settings(std::nullopt, {"data=" + (dir / "data").string(), "model=resnet18", "imgsz=32", "epochs=1",
                                   "batch=4", "accumulate=2", "workers=0", "device=cpu", "optimizer=adamw",
                                   "lr0=0.01", "warmup_updates=0", "freeze=layer1,layer2,layer3,layer4.0"});
  const auto task = make_task(settings);
  torch::nn::Module& model = task->model();
  std::vector<std::pair<std::string, torch::Tensor>> before;
  for (const auto& item : model.named_parameters()) before.emplace_back(item.key(), item.value().detach().clone());
  Trainer trainer(settings, *task);
  const TrainingSummary summary = trainer.fit();
  REQUIRE(summary.updates > 0);
  const std::vector<std::string> frozen{"layer1", "layer2", "layer3", "layer4.0"};
  size_t moved = 0;
  for (const auto& [name, initial] : before) {
    INFO(name);
    const torch::Tensor now = model.named_parameters()[name];  // a copy: the dict is a temporary
    if (starts_with_any(name, frozen)) {
      CHECK(torch::equal(now, initial));
      CHECK_FALSE(now.grad().defined());
    } else {
      moved += torch::equal(now, initial) ? 0 : 1;
    }
  }
  // Every trainable tensor (conv1, bn1, layer4.1, fc) moved.
  CHECK(moved == trainable(model).size());
}
