// Ultralytics' own checkpoints (released weights, a run's best.pt / last.pt) pickle the whole
// model; they must load with Ultralytics' key names, scale, classes and names, give the same
// outputs as a state dict of the same weights, and never run code: a pickle that reaches for
// os.system, eval, subprocess or getattr is refused by name. The files come from
// scripts/python/ultralytics_checkpoint_fixture.py, which pickles stand-ins under the real
// module paths.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "io/pretrained.h"
#include "io/state_dict.h"
#include "io/torch_pickle.h"
#include "models/yolo.h"
#include "onnx/onnx_metadata.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;
using trainer::testing::CommandResult;
using trainer::testing::read_text;
using trainer::testing::run_trainer;
using trainer::testing::TempDir;

namespace {

const testing::PythonOutput& fixture() {
  static const testing::PythonOutput files("ultralytics_checkpoint_fixture.py");
  return files;
}

const std::vector<std::string> kNames = {"person", "bicycle", "car", "dog", "cat"};

// The shapes of `trainer data synth-detect` in `dir`/shapes under the fixture's class names, as
// `dir`/shapes/`name`.
void write_coco_named(const TempDir& dir, const std::string& name) {
  testing::write_text(dir / "shapes" / name,
                      "train: images/train\nval: images/val\nnames: [person, bicycle, car, dog, cat]\n");
}

// The model the fixture pickles: YOLOv8n with 5 classes.
Yolo yolov8n() { return make_yolo("yolov8n", 3, 5); }

std::vector<torch::Tensor> outputs_from(const std::string& file) {
  Yolo model = yolov8n();
  load_pretrained(*model, fixture().file(file));
  model->eval();
  torch::manual_seed(3);
  const torch::NoGradGuard no_grad;
  return model->forward(torch::rand({2, 3, 64, 96}));
}

}  // namespace

TEST_CASE("Ultralytics' checkpoints give the weights under Ultralytics' keys, with scale, classes and names",
          "[io][ultralytics]") {
  struct Case {
    std::string file, entry, version;
  };
  std::vector<std::string> model_keys;
  for (const auto& [name, tensor] : state_dict(*yolov8n())) model_keys.push_back(name);
  for (const Case& c :
       {Case{"released.pt", "model", "8.0.0"}, Case{"last.pt", "ema", "8.3.40"}, Case{"last_p4.pt", "ema", "8.3.40"}}) {
    INFO(c.file);
    const PretrainedWeights weights = read_pretrained(fixture().file(c.file));
    CHECK(weights.entry == c.entry);
    REQUIRE(weights.ultralytics);
    const UltralyticsModel& file = *weights.ultralytics;
    CHECK(file.type == "ultralytics.nn.tasks.DetectionModel");
    CHECK(file.version == c.version);
    CHECK(file.scale == "n");
    CHECK(file.classes == 5);
    CHECK(file.names == kNames);
    CHECK(file.data == "coco8.yaml");  // train_args: what `val` opens when data= is not given
    std::vector<std::string> file_keys;
    for (const auto& [name, tensor] : file.weights) {
      file_keys.push_back(name);
      if (tensor.is_floating_point()) CHECK(tensor.scalar_type() == torch::kFloat);
    }
    CHECK(file_keys == model_keys);  // same names, in state_dict() order
  }
}

TEST_CASE("without a yaml, scale and class count come from the tensors", "[io][ultralytics]") {
  const PretrainedWeights weights = read_pretrained(fixture().file("no_yaml.pt"));
  REQUIRE(weights.ultralytics);
  CHECK(weights.entry == "model");
  CHECK(weights.ultralytics->scale == "n");
  CHECK(weights.ultralytics->classes == 5);
  CHECK(weights.ultralytics->names.empty());
}

TEST_CASE("YOLOv8 from an Ultralytics checkpoint computes what it does from a state dict of the same weights",
          "[io][ultralytics]") {
  const std::vector<torch::Tensor> expected = outputs_from("weights.pt");
  for (const std::string file : {"released.pt", "last.pt", "last_p4.pt"}) {
    INFO(file);
    const std::vector<torch::Tensor> outputs = outputs_from(file);
    REQUIRE(outputs.size() == expected.size());
    for (size_t level = 0; level < outputs.size(); ++level) CHECK(torch::equal(outputs[level], expected[level]));
  }
  // Not a tautology: a model left as initialised computes something else.
  Yolo fresh = yolov8n();
  fresh->eval();
  torch::manual_seed(3);
  const torch::NoGradGuard no_grad;
  CHECK_FALSE(torch::allclose(fresh->forward(torch::rand({2, 3, 64, 96}))[0], expected[0]));
}

TEST_CASE("an Ultralytics model of another task is refused by its class", "[io][ultralytics]") {
  CHECK_THROWS_WITH(read_pretrained(fixture().file("segment.pt")),
                    Catch::Contains("segment.pt") && Catch::Contains("ultralytics.nn.tasks.SegmentationModel") &&
                        Catch::Contains("detection"));
}

TEST_CASE("a pickle reaching for code is refused by name and nothing in it runs", "[io][ultralytics]") {
  struct Case {
    std::string file, global, ran;
  };
  for (const Case& c :
       {Case{"evil_system.pt", "posix.system", "ran_system"}, Case{"evil_system_p4.pt", "posix.system", "ran_system"},
        Case{"evil_eval.pt", "__builtin__.eval", "ran_eval"}, Case{"evil_eval_p4.pt", "builtins.eval", "ran_eval"},
        Case{"evil_subprocess.pt", "commands.Popen", "ran_subprocess"},
        Case{"evil_subprocess_p4.pt", "subprocess.Popen", "ran_subprocess"},
        Case{"evil_getattr_p4.pt", "builtins.getattr", "ran_getattr"}}) {
    INFO(c.file);
    const std::string path = fixture().file(c.file);
    CHECK_THROWS_AS(read_pretrained(path), UserError);
    CHECK_THROWS_WITH(read_pretrained(path), Catch::Contains(path) && Catch::Contains(c.global) &&
                                                 Catch::Contains("nothing in the file was run"));
    CHECK_FALSE(std::filesystem::exists(fixture().file(c.ran)));
  }
  // The plain reader refuses any object, inert or not.
  CHECK_THROWS_WITH(read_torch_pickle(fixture().file("released.pt")),
                    Catch::Contains("ultralytics.nn.tasks.DetectionModel"));
}

TEST_CASE("train, val and export take Ultralytics' files as `yolo` does, and refuse a malicious one",
          "[detect][cli][ultralytics]") {
  TempDir dir("ultralytics-cli");
  const CommandResult made =
      run_trainer("data synth-detect --out " + dir.file("shapes") + " --train 8 --val 4 --imgsz 64 --max-objects 2");
  REQUIRE(made.exit_code == 0);
  const std::string data = " data=" + dir.file("shapes/data.yaml") + " imgsz=64 batch=4 workers=1";
  // A run's best.pt: its name says nothing of the architecture, the file does (yolov8n, 5 classes).
  std::filesystem::copy_file(fixture().file("last.pt"), dir.file("best.pt"));

  const CommandResult trained = run_trainer("train model=" + dir.file("best.pt") + data +
                                            " epochs=1 warmup_epochs=0 project=" + dir.file("runs") + " name=ft");
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  CHECK_THAT(trained.output,
             Catch::Contains("pretrained: loaded 355 tensors from " + dir.file("best.pt") + " (entry 'ema')") &&
                 Catch::Contains("ultralytics.nn.tasks.DetectionModel (Ultralytics 8.3.40), scale n"));
  CHECK(read_text(dir / "runs" / "ft" / "args.yaml").find("model: yolov8n") != std::string::npos);

  // val checks the data's classes against the file's names: the shapes under the fixture's names.
  write_coco_named(dir, "coco.yaml");
  const CommandResult val = run_trainer("val model=" + fixture().file("released.pt") +
                                        " data=" + dir.file("shapes/coco.yaml") + " imgsz=64 batch=4 workers=1");
  INFO(val.output);
  REQUIRE(val.exit_code == 0);
  CHECK_THAT(val.output, Catch::Contains("mAP50-95"));
  const CommandResult other_names = run_trainer("val model=" + fixture().file("released.pt") + data);
  CHECK(other_names.exit_code == 2);
  CHECK_THAT(other_names.output, Catch::Contains("class 0 is 'circle' there, 'person' in the model"));

  const CommandResult exported =
      run_trainer("export --weights " + fixture().file("released.pt") + " -o " + dir.file("released.safetensors"));
  INFO(exported.output);
  REQUIRE(exported.exit_code == 0);
  CHECK_THAT(exported.output, Catch::Contains("exported 355 tensors (model weights"));

  std::filesystem::copy_file(fixture().file("evil_system.pt"), dir.file("yolov8n.pt"));
  const CommandResult refused = run_trainer("train model=" + dir.file("yolov8n.pt") + data + " epochs=1");
  INFO(refused.output);
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.output, Catch::Contains("posix.system") && Catch::Contains("nothing in the file was run"));
  CHECK_FALSE(std::filesystem::exists(fixture().file("ran_system")));
}

TEST_CASE("export format=onnx takes an Ultralytics file and needs no data for it", "[onnx][cli][ultralytics]") {
  TempDir dir("ultralytics-onnx");
  std::filesystem::copy_file(fixture().file("released.pt"), dir.file("yolov8n.pt"));
  const CommandResult exported = run_trainer("export model=" + dir.file("yolov8n.pt") + " format=onnx imgsz=64");
  INFO(exported.output);
  REQUIRE(exported.exit_code == 0);
  const std::map<std::string, std::string> metadata =
      onnx_export::read_onnx_file_info(dir.file("yolov8n.onnx")).metadata;
  CHECK(metadata.at("task") == "detect");
  CHECK(metadata.at("imgsz") == "[64, 64]");
  CHECK(metadata.at("names") == "{0: 'person', 1: 'bicycle', 2: 'car', 3: 'dog', 4: 'cat'}");

  // The exported file predicts without data (its metadata's names; the recipe's data=coco8.yaml,
  // from the file's train_args, is nowhere) and validates, in OpenCV DNN.
  const CommandResult made =
      run_trainer("data synth-detect --out " + dir.file("shapes") + " --train 1 --val 4 --imgsz 64");
  REQUIRE(made.exit_code == 0);
  const CommandResult predicted =
      run_trainer("predict model=" + dir.file("yolov8n.onnx") + " source=" + dir.file("shapes/images/val") +
                  " conf=0.0001 project=" + dir.file("runs"));
  INFO(predicted.output);
  CHECK(predicted.exit_code == 0);
  CHECK(testing::count_lines(predicted.output, dir.file("shapes/images/val")) == 4);
  write_coco_named(dir, "coco.yaml");
  const std::string data = " data=" + dir.file("shapes/coco.yaml") + " batch=4 workers=1";
  const CommandResult val_onnx = run_trainer("val model=" + dir.file("yolov8n.onnx") + data);
  INFO(val_onnx.output);
  CHECK(val_onnx.exit_code == 0);
  CHECK_THAT(val_onnx.output, Catch::Contains("OpenCV") && Catch::Contains("mAP50-95"));
}
