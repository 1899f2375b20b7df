// Users' files, not the defaults: the fixtures of tests/fixtures/users/ have the shapes of files
// people have (an args.yaml of each Ultralytics era with a user's values, a Roboflow export, an
// EasyOCR trainer config kept with easyocr.Reader's keys and a repeated character, EasyOCR configs
// of its other recognizers), and each is loaded through the binary in one run, with the outcome
// of each asserted.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <tuple>
#include <vector>

#include "detect_files.h"
#include "test_helpers.h"

using namespace trainer::testing;

namespace {

namespace fs = std::filesystem;

std::string fixture(const std::string& name) {
  return std::string(TRAINER_SOURCE_DIR) + "/tests/fixtures/users/" + name;
}

// A Roboflow export: data.yaml beside train/ and valid/, each with images/ and labels/; no test/.
std::string write_roboflow_export(const fs::path& root) {
  for (const std::string split : {"train", "valid"}) {
    // write_labelled_image's <root>/images/<split>/ is Roboflow's <root>/<split>/images/ at split ".".
    write_labelled_image(root / split, ".", split + "_a", {64, 48}, {{0, {4, 4, 20, 16}}, {1, {30, 20, 16, 20}}});
    write_labelled_image(root / split, ".", split + "_b", {48, 64}, {{1, {8, 10, 24, 24}}});
  }
  fs::copy_file(fixture("roboflow-data.yaml"), root / "data.yaml");
  return (root / "data.yaml").string();
}

// `trainer keys`: the recipe a file resolves to, or its refusal.
CommandResult resolved(const std::string& file, const std::string& overrides) {
  return run_trainer("keys --config " + fixture(file) + " " + overrides);
}

// The trainable parameters `trainer plan` reports.
long long planned_parameters(const std::string& output) {
  std::smatch match;
  REQUIRE(std::regex_search(output, match, std::regex(R"(\n\s*parameters\s+(\d+) \()")));
  return std::stoll(match[1]);
}

}  // namespace

TEST_CASE("users' files load through the binary as their tools load them", "[foreign][cli][users]") {
  TempDir dir("users-files");
  const std::string data = "data=" + write_roboflow_export(dir / "export");

  const CommandResult v80 = resolved("ultralytics-8.0-args.yaml", data);
  INFO(v80.output);
  CHECK(v80.exit_code == 0);
  CHECK_THAT(v80.output, Catch::Contains("optimizer: adam\n") && Catch::Contains("lr0: 0.001\n") &&
                             Catch::Contains("hide_labels (Ultralytics: predict)") &&
                             Catch::Contains("workspace (Ultralytics: export)") && Catch::Contains("v5loader"));

  // cos_lr is the cosine schedule; patience 0 never stops; save_period 0 is off; '' is the default;
  // the other modes' non-default keys are ignored, as Ultralytics' training ignores them.
  const CommandResult v81 = resolved("ultralytics-8.1-args.yaml", data);
  INFO(v81.output);
  CHECK(v81.exit_code == 0);
  CHECK_THAT(v81.output, Catch::Contains("scheduler: cosine\n") && Catch::Contains("patience: 0\n") &&
                             Catch::Contains("save_period: -1\n") && Catch::Contains("device: cuda:0\n") &&
                             Catch::Contains("verbose (Ultralytics: log output)") && Catch::Contains("opset (") &&
                             Catch::Contains("half (") && Catch::Contains("source (") && Catch::Contains("show ("));

  // A [h, w] imgsz trains at its largest side; dropout: false is 0; freeze lists layer indices. The
  // file's device: mps is refused, unless the command line replaces it before anything is checked.
  const CommandResult on_mps = resolved("ultralytics-8.2-args.yaml", data);
  CHECK(on_mps.exit_code == 2);
  CHECK_THAT(on_mps.output, Catch::Contains("ultralytics-8.2-args.yaml:18:9") && Catch::Contains("mps"));
  const CommandResult v82 = resolved("ultralytics-8.2-args.yaml", data + " device=cpu");
  INFO(v82.output);
  CHECK(v82.exit_code == 0);
  CHECK_THAT(v82.output, Catch::Contains("imgsz: 96\n") && Catch::Contains("imgsz=96") &&
                             Catch::Contains("dropout: 0\n") && Catch::Contains("model.0") &&
                             Catch::Contains("model.1") && Catch::Contains("single_cls: true\n"));

  const CommandResult v83 = resolved("ultralytics-8.3-args.yaml", data);
  INFO(v83.output);
  CHECK(v83.exit_code == 0);
  CHECK_THAT(v83.output, Catch::Contains("device: cuda:0\n") && Catch::Contains("optimizer: adamw\n") &&
                             Catch::Contains("mixup: 0.1\n"));
  // AutoBatch's -1 and shares are taken as they are written (the batch is chosen when training starts).
  for (const std::string share : {"0.8", "-1"}) {
    const CommandResult automatic = resolved("ultralytics-8.3-args.yaml", data + " batch=" + share);
    INFO(automatic.output);
    CHECK(automatic.exit_code == 0);
    CHECK_THAT(automatic.output, Catch::Contains("batch: " + share + "\n"));
  }
  // Ultralytics' disk cache is taken as written.
  const CommandResult disk = resolved("ultralytics-8.3-args.yaml", data + " cache=disk");
  INFO(disk.output);
  CHECK(disk.exit_code == 0);
  CHECK_THAT(disk.output, Catch::Contains("cache: disk\n"));

  const CommandResult v84 = resolved("ultralytics-8.4-args.yaml", data);
  INFO(v84.output);
  CHECK(v84.exit_code == 0);
  CHECK(v84.output.find("unknown key") == std::string::npos);
  CHECK_THAT(v84.output, Catch::Contains("rle (Ultralytics: pose)") &&
                             Catch::Contains("angle (Ultralytics: obb)") && Catch::Contains("compile: none\n"));
  const CommandResult scaled = resolved("ultralytics-8.4-args.yaml", data + " multi_scale=0.5");
  CHECK(scaled.exit_code == 2);
  CHECK_THAT(scaled.output, Catch::Contains("multi-scale training"));

  // The Roboflow export trains from where its data.yaml is: ../train/images retried without
  // the ../, the missing test/ left out.
  const CommandResult planned = run_trainer("plan --config " + fixture("ultralytics-8.3-args.yaml") + " " + data +
                                            " device=cpu project=" + dir.file("runs"));
  INFO(planned.output);
  CHECK(planned.exit_code == 0);
  CHECK_THAT(planned.output, Catch::Contains("test split is not needed for training"));

  // EasyOCR: its folders as the config names them, the labels directly in train_data.
  REQUIRE(run_trainer("data digits --out " + dir.file("digits") + " --train 6 --val 4 --seed 5").exit_code == 0);
  fs::create_directories(dir / "all_data");
  fs::rename(dir / "digits" / "train", dir / "all_data" / "en_train");
  fs::rename(dir / "digits" / "val", dir / "all_data" / "en_val");
  const std::string plan_easyocr = "cd " + dir.path().string() + " && " + TRAINER_BINARY + " plan --config ";
  const CommandResult easyocr = run_command(plan_easyocr + fixture("easyocr-config.yaml"));
  INFO(easyocr.output);
  CHECK(easyocr.exit_code == 0);
  CHECK_THAT(easyocr.output, Catch::Contains("network_params (EasyOCR: Reader)") &&
                                 Catch::Contains("character_list (EasyOCR: Reader)") &&
                                 Catch::Contains("task: ocr\n"));
  // The repeated space is a class of its own, as in EasyOCR's converter: one Prediction row and
  // bias more (hidden_size 16) than the same set without it.
  std::string once = read_text(fixture("easyocr-config.yaml"));
  once.replace(once.find("symbol: \" !"), 11, "symbol: \"!");
  write_text(dir / "once.yaml", once);
  const CommandResult without_repeat = run_command(plan_easyocr + dir.file("once.yaml"));
  INFO(without_repeat.output);
  REQUIRE(without_repeat.exit_code == 0);
  CHECK(planned_parameters(easyocr.output) - planned_parameters(without_repeat.output) == 16 + 1);

  // EasyOCR's other recognizers at the size its modules take, with its en characters (96): the
  // parameters EasyOCR's Model has (scripts/python/crnn_fixture.py counts them).
  const std::vector<std::tuple<std::string, std::string, long long>> recognizers{
      {"easyocr-tps-resnet-bilstm-attn.yaml",
       "Transformation: TPS\nFeatureExtraction: ResNet\nSequenceModeling: "
       "BiLSTM\nPrediction: Attn\n",
       49'632'042},
      {"easyocr-none-resnet-bilstm-ctc.yaml",
       "Transformation: None\nFeatureExtraction: ResNet\nSequenceModeling: "
       "BiLSTM\nPrediction: CTC\n",
       47'181'121},
      {"easyocr-none-rcnn-none-ctc.yaml",
       "Transformation: None\nFeatureExtraction: RCNN\nSequenceModeling: "
       "None\nPrediction: CTC\n",
       1'909'729}};
  for (const auto& [file, stages, parameters] : recognizers) {
    const CommandResult recognizer = run_command(plan_easyocr + fixture(file));
    INFO(file << "\n" << recognizer.output);
    CHECK(recognizer.exit_code == 0);
    CHECK_THAT(recognizer.output, Catch::Contains(stages));
    CHECK(planned_parameters(recognizer.output) == parameters);
  }
}
