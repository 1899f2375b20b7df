// The command lines users bring from Ultralytics and timm: task words before or after the mode,
// Ultralytics' argument habits, cfg=FILE, `train resume model=…`, timm's --flags, and usage
// errors that all exit 2. `trainer keys` prints the resolved recipe, so it shows what each form
// set without training anything.
#include <catch2/catch.hpp>

#include "test_helpers.h"

using namespace trainer::testing;

TEST_CASE("a task word goes before or after the mode", "[cli][grammar]") {
  for (const char* command : {"detect keys", "keys detect"}) {
    INFO(command);
    const CommandResult result = run_trainer(command);
    INFO(result.output);
    CHECK(result.exit_code == 0);
    CHECK_THAT(result.output, Catch::Contains("task: detect") && Catch::Contains("model: yolov8n"));
  }
  const CommandResult ocr = run_trainer("ocr keys epochs=2");
  CHECK_THAT(ocr.output,
             Catch::Contains("task: ocr") && Catch::Contains("model: crnn") && Catch::Contains("epochs: 2"));
  // A task word and a model of another task disagree, as task= and model= do.
  CHECK(run_trainer("classify keys model=yolov8n.yaml").exit_code == 2);
  for (const char* task : {"segment", "pose", "obb"}) {
    const CommandResult other = run_trainer(std::string(task) + " train data=x");
    INFO(other.output);
    CHECK(other.exit_code == 2);
    CHECK_THAT(other.output, Catch::Contains("task '" + std::string(task) + "' is not supported") &&
                                 Catch::Contains("detect, classify, ocr"));
  }
}

TEST_CASE("Ultralytics' argument habits", "[cli][grammar]") {
  const CommandResult spaced = run_trainer("keys epochs = 3 batch= 8 lr0 =0.02 imgsz=64, pretrained=None");
  INFO(spaced.output);
  CHECK(spaced.exit_code == 0);
  CHECK_THAT(spaced.output, Catch::Contains("epochs: 3\n") && Catch::Contains("batch: 8\n") &&
                                Catch::Contains("lr0: 0.02\n") && Catch::Contains("imgsz: 64\n") &&
                                Catch::Contains("pretrained: none\n"));
  // `mode=` names the mode, as the mode word does.
  const CommandResult mode = run_trainer("mode=keys epochs=4");
  INFO(mode.output);
  CHECK(mode.exit_code == 0);
  CHECK_THAT(mode.output, Catch::Contains("epochs: 4\n"));
}

TEST_CASE("cfg=FILE is --config FILE", "[cli][grammar]") {
  TempDir dir("cfg");
  write_text(dir / "r.yaml", "epochs: 7\nbatch: 4\n");
  const CommandResult cfg = run_trainer("keys cfg=" + (dir / "r.yaml").string() + " batch=2");
  INFO(cfg.output);
  CHECK(cfg.exit_code == 0);
  CHECK_THAT(cfg.output, Catch::Contains("epochs: 7\n") && Catch::Contains("batch: 2\n"));
  const CommandResult both =
      run_trainer("keys cfg=" + (dir / "r.yaml").string() + " --config " + (dir / "r.yaml").string());
  CHECK(both.exit_code == 2);
  CHECK_THAT(both.output, Catch::Contains("give one"));
}

TEST_CASE("train resume model=PATH is resume=PATH", "[cli][grammar]") {
  const CommandResult spelled = run_trainer("keys resume model=/runs/x/weights/last.pt");
  INFO(spelled.output);
  CHECK(spelled.exit_code == 0);
  CHECK_THAT(spelled.output,
             Catch::Contains("resume: /runs/x/weights/last.pt\n") && Catch::Contains("model: resnet18\n"));
  // Without resume, model= keeps its meaning.
  CHECK_THAT(run_trainer("keys model=yolov8s.pt").output, Catch::Contains("pretrained: yolov8s.pt\n"));
}

TEST_CASE("every usage error exits 2, CLI11's own included", "[cli][grammar]") {
  for (const char* command : {"", "frobnicate", "plan --probe-modes none", "export", "data", "val --top 3"}) {
    INFO(command);
    const CommandResult result = run_trainer(command);
    INFO(result.output);
    CHECK(result.exit_code == 2);
  }
  CHECK(run_trainer("--help").exit_code == 0);
  CHECK(run_trainer("train --help").exit_code == 0);
}
