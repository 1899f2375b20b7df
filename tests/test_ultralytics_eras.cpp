// Ultralytics' .pt files of every era, laid out as the real files read from public repositories
// are (tests/fixtures/ultralytics/README.md names each one): the released yolov8n.pt of 8.0 and
// yolo11n.pt of 8.2.100, a user's best.pt of 8.3.174 and the file layout of 8.3.243 (torch 2.6's
// records, "scaler" and "git"). scripts/python/ultralytics_era_fixture.py writes them with
// regenerated tensors and the same weights as plain state dicts, so the reader is checked against
// each era's real structure, not against our reading of Ultralytics' source.
#include <catch2/catch.hpp>

#include "families/model_family.h"
#include "io/pretrained.h"
#include "test_helpers.h"

using namespace trainer;

namespace {

const testing::PythonOutput& fixture() {
  static const testing::PythonOutput files("ultralytics_era_fixture.py");
  return files;
}

}  // namespace

TEST_CASE(
    "Ultralytics files of 8.0, 8.2, 8.3 and 8.3.243 give their weights, scale, classes and names",
    "[io][ultralytics]") {
  struct Case {
    std::string file, version, architecture, state_dict, data;
    int64_t classes;
  };
  for (const Case& c :
       {Case{"8.0/yolov8n.pt", "8.0.0.dev0", "yolov8n", "weights-80.pt", "coco.yaml", 80},
        Case{"8.2/yolo11n.pt", "8.2.100", "yolo11n", "yolo11n-weights.pt",
             "/usr/src/ultralytics/ultralytics/cfg/datasets/coco.yaml", 80},
        Case{"8.3/best.pt", "8.3.174", "yolov8n", "weights-44.pt", "data.yaml", 44},
        Case{"8.3.243/best.pt", "8.3.243", "yolov8n", "weights-44.pt", "data.yaml", 44}}) {
    INFO(c.file);
    const PretrainedWeights weights = read_pretrained(fixture().file(c.file));
    CHECK(weights.entry == "model");  // strip_optimizer leaves "ema" None
    REQUIRE(weights.ultralytics);
    const UltralyticsModel& file = *weights.ultralytics;
    CHECK(file.type == "ultralytics.nn.tasks.DetectionModel");
    CHECK(file.version == c.version);
    // The scale of 8.0 and of the 8.3 user's file by depth and width multiples, of 8.2 by "scale";
    // YOLOv8 or YOLO11 by the layers' layout.
    CHECK(file.scale == "n");
    CHECK(ultralytics_architecture(file) == c.architecture);
    CHECK(file.classes == c.classes);
    REQUIRE(file.names.size() == static_cast<size_t>(c.classes));
    CHECK(file.names.back() == "class" + std::to_string(c.classes - 1));
    CHECK(file.data == c.data);
    const PretrainedWeights plain = read_pretrained(fixture().file(c.state_dict));
    REQUIRE(file.weights.size() == plain.tensors.size());
    for (const auto& [name, tensor] : file.weights) {
      INFO(name);
      REQUIRE(plain.tensors.count(name) == 1);
      CHECK(torch::equal(tensor, plain.tensors.at(name).to(tensor.scalar_type())));
    }
  }
}
