// Other tools' recipe files load as they are: Ultralytics' default.yaml and a run's args.yaml,
// EasyOCR's trainer config files. Every key is known, all of a file's problems come in one run
// with file:line:column, and an EasyOCR config with its data layout trains through the binary.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "config/foreign_keys.h"
#include "config/key_docs.h"
#include "config/recipe_keys.h"
#include "data/ocr/ocr_labels.h"
#include "families/recipes.h"
#include "io/checkpoint.h"
#include "run/results_csv.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;
using trainer::testing::CapturedLog;
using trainer::testing::CommandResult;
using trainer::testing::read_text;
using trainer::testing::run_command;
using trainer::testing::run_trainer;
using trainer::testing::TempDir;
using trainer::testing::write_text;

namespace {

namespace fs = std::filesystem;

// Ultralytics 8.3's default.yaml, byte for byte (tests/fixtures/ultralytics/README.md says whence).
const std::string kDefaultYaml =
    std::string(TRAINER_SOURCE_DIR) + "/tests/fixtures/ultralytics/default-8.3.yaml";
const std::string kUsersFixtures = std::string(TRAINER_SOURCE_DIR) + "/tests/fixtures/users/";

std::string error_of(const std::string& file, const std::vector<std::string>& overrides = {}) {
  try {
    load_settings(file, overrides);
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

// The top-level keys of a YAML file, in order, read as text (not through the loader under test).
std::vector<std::string> file_keys(const std::string& path) {
  std::vector<std::string> keys;
  std::ifstream in(path);
  const std::regex key_line(R"(^([A-Za-z_][A-Za-z0-9_]*):.*)");
  std::smatch match;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_match(line, match, key_line)) keys.push_back(match[1]);
  }
  return keys;
}

// EasyOCR's trainer/config_files/en_filtered_config.yaml, key for key (contrast_adjust twice, as
// there), with `replaced` lines swapped for others.
std::string en_filtered_config(const std::map<std::string, std::string>& replaced = {}) {
  const std::vector<std::pair<std::string, std::string>> lines = {
      {"number", "'0123456789'"},
      {"symbol", "\"!\\\"#$%&'()*+,-./:;<=>?@[\\\\]^_`{|}~ €\""},
      {"lang_char", "'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'"},
      {"experiment_name", "'en_filtered'"},
      {"train_data", "'all_data'"},
      {"valid_data", "'all_data/en_val'"},
      {"manualSeed", "1111"},
      {"workers", "6"},
      {"batch_size", "32 #32"},
      {"num_iter", "300000"},
      {"valInterval", "20000"},
      {"saved_model", "'' #'saved_models/en_filtered/iter_300000.pth'"},
      {"FT", "False"},
      {"optim", "False # default is Adadelta"},
      {"lr", "1."},
      {"beta1", "0.9"},
      {"rho", "0.95"},
      {"eps", "0.00000001"},
      {"grad_clip", "5"},
      {"select_data", "'en_train_filtered' # this is dataset folder in train_data"},
      {"batch_ratio", "'1' "},
      {"total_data_usage_ratio", "1.0"},
      {"batch_max_length", "34 "},
      {"imgH", "64"},
      {"imgW", "600"},
      {"rgb", "False"},
      {"contrast_adjust", "False"},
      {"sensitive", "True"},
      {"PAD", "True"},
      {"contrast_adjust", "0.0"},
      {"data_filtering_off", "False"},
      {"Transformation", "'None'"},
      {"FeatureExtraction", "'VGG'"},
      {"SequenceModeling", "'BiLSTM'"},
      {"Prediction", "'CTC'"},
      {"num_fiducial", "20"},
      {"input_channel", "1"},
      {"output_channel", "256"},
      {"hidden_size", "256"},
      {"decode", "'greedy'"},
      {"new_prediction", "False"},
      {"freeze_FeatureFxtraction", "False"},
      {"freeze_SequenceModeling", "False"},
  };
  std::string text;
  for (const auto& [key, value] : lines) {
    const auto swap = replaced.find(key);
    if (swap == replaced.end()) {
      text += key + ": " + value + "\n";
    } else if (!swap->second.empty()) {
      text += swap->second + "\n";
    }
  }
  return text;
}

// EasyOCR's Adadelta at lr 1.0 replaced by AdamW at our demo's rate, which trains the tiny set in
// a few updates.
const std::map<std::string, std::string> kOurOptimizer = {
    {"optim", "optimizer: adamw"}, {"lr", "lr0: 0.002"}, {"rho", ""}, {"eps", ""}};

}  // namespace

TEST_CASE("Ultralytics 8.3's default.yaml loads in one run", "[config][foreign]") {
  CapturedLog log;
  const Settings settings = load_settings(kDefaultYaml, {});
  CHECK(settings.run.task == TaskKind::detect);
  CHECK(settings.run.model == "yolov8n");
  CHECK(settings.run.pretrained.empty());
  CHECK(settings.run.device == "auto");  // `device:` is empty: the default
  CHECK(settings.schedule.epochs == 100);
  CHECK(settings.data.imgsz == 640);
  CHECK(settings.data.workers == 8);
  CHECK(settings.optim.lr0 == Approx(0.01));
  CHECK(settings.detect.close_mosaic == 10);
  CHECK_FALSE(settings.detect.conf.has_value());
  CHECK(settings.output.name == "train");
  // One info line names the keys that mean nothing here at Ultralytics' defaults.
  CHECK_THAT(log.text(),
             Catch::Contains("ignored: mode, save, rect, cos_lr, profile, multi_scale"));
  // Keys another mode or task reads, in one line.
  CHECK_THAT(log.text(), Catch::Contains("verbose (Ultralytics: log output)") &&
                             Catch::Contains("tracker (Ultralytics: track)") &&
                             Catch::Contains("format (Ultralytics: export)"));
}

namespace {

// Each era's default.yaml as released (tests/fixtures/ultralytics/README.md says whence), loaded
// whole by the binary, and what it must come to. Where an era's file is refused, `outcome` is the
// refusal's text naming the key, and `exit_code` 2.
struct EraOutcome {
  std::string era;
  int exit_code;
  std::vector<std::string> outcome;  // lines of `trainer keys` (or of its error)
};

const std::vector<EraOutcome> kEras = {
    // 8.0 (ultralytics/yolo/cfg/): SGD by default, close_mosaic 0, patience 50, and its own
    // retired keys (image_weights, line_thickness, boxes, v5loader) among the ignored. Keys that
    // only another mode or task reads are named apart from those that mean nothing here.
    {"8.0",
     0,
     {"optimizer: sgd", "close_mosaic: 0", "patience: 50",
      "32 keys that their tool reads only in the mode", "7 keys of other tools mean nothing here",
      "image_weights", "line_thickness", "v5loader"}},
    {"8.1",
     0,
     {"optimizer: auto", "close_mosaic: 10", "patience: 100",
      "33 keys that their tool reads only in the mode", "8 keys of other tools mean nothing here",
      "stream_buffer", "show_boxes", "bgr"}},
    {"8.2",
     0,
     {"optimizer: auto", "workers: 0", "patience: 100",
      "33 keys that their tool reads only in the mode", "8 keys of other tools mean nothing here"}},
    {"8.3",
     0,
     {"optimizer: auto", "patience: 100", "35 keys that their tool reads only in the mode",
      "8 keys of other tools mean nothing here", "fuse"}},
};

std::string era_file(const EraOutcome& era) {
  return std::string(TRAINER_SOURCE_DIR) + "/tests/fixtures/ultralytics/default-" + era.era +
         ".yaml";
}

}  // namespace

TEST_CASE("each Ultralytics era's default.yaml loads whole through the binary",
          "[config][foreign][cli]") {
  for (const EraOutcome& era : kEras) {
    const std::string file = era_file(era);
    const CommandResult keys = run_trainer("keys cfg=" + file);
    INFO(file << "\n" << keys.output);
    CHECK(keys.exit_code == era.exit_code);
    if (era.exit_code == 0) {
      // Every era: a detection recipe of yolov8n, 100 epochs at 640, none of its values refused.
      for (const char* line :
           {"\ntask: detect\n", "\nmodel: yolov8n\n", "\nepochs: 100\n", "\nimgsz: 640\n"})
        CHECK_THAT(keys.output, Catch::Contains(line));
    }
    for (const std::string& expected : era.outcome)
      CHECK_THAT(keys.output, Catch::Contains(expected));
  }
}

TEST_CASE("every key of Ultralytics' and EasyOCR's files is known to the key table",
          "[config][foreign]") {
  for (ForeignTool tool : {ForeignTool::ultralytics, ForeignTool::easyocr}) {
    std::set<std::string> seen;
    for (const std::string& name : tool_file_keys(tool)) {
      INFO(name);
      CHECK(seen.insert(name).second);
      CHECK((find_recipe_key(name) != nullptr || find_foreign_spelling(name).has_value()));
    }
  }
  const auto& ultralytics = tool_file_keys(ForeignTool::ultralytics);
  // The default.yaml of every era, and the args.yaml shapes of 8.0 to 8.4 (tests/fixtures/users/).
  std::vector<std::string> files;
  for (const EraOutcome& era : kEras) files.push_back(era_file(era));
  for (const char* era : {"8.0", "8.1", "8.2", "8.3", "8.4"}) {
    files.push_back(kUsersFixtures + "ultralytics-" + era + "-args.yaml");
  }
  for (const std::string& file : files) {
    for (const std::string& name : file_keys(file)) {
      INFO(file << ": " << name);
      CHECK(std::find(ultralytics.begin(), ultralytics.end(), name) != ultralytics.end());
    }
  }
  const auto& easyocr = tool_file_keys(ForeignTool::easyocr);
  TempDir dir("easyocr-keys");
  write_text(dir / "en_filtered_config.yaml", en_filtered_config());
  for (const std::string& file :
       {dir.file("en_filtered_config.yaml"), kUsersFixtures + "easyocr-config.yaml"}) {
    for (const std::string& name : file_keys(file)) {
      INFO(file << ": " << name);
      CHECK(std::find(easyocr.begin(), easyocr.end(), name) != easyocr.end());
    }
  }
}

TEST_CASE("an Ultralytics run's args.yaml and our own load the same way", "[config][foreign]") {
  TempDir dir("args-yaml");
  // As Ultralytics writes it: yaml.safe_dump(vars(args), sort_keys=False) after the run's
  // overrides.
  const CommandResult dumped = run_command(
      "/usr/bin/python3 -c \"import yaml,sys; a=yaml.safe_load(open(sys.argv[1])); "
      "a.update(model='yolov8s.pt', "
      "data='coco8.yaml', epochs=3, batch=8, name='train', device='cpu', "
      "save_dir='runs/detect/train'); "
      "yaml.safe_dump(a, open(sys.argv[2], 'w'), sort_keys=False, allow_unicode=True)\" " +
      kDefaultYaml + " " + dir.file("args.yaml"));
  INFO(dumped.output);
  REQUIRE(dumped.exit_code == 0);
  INFO(read_text(dir / "args.yaml"));
  CHECK(read_text(dir / "args.yaml").find("time: null") != std::string::npos);
  const Settings settings = load_settings(dir.file("args.yaml"), {});
  CHECK(settings.run.model == "yolov8s");
  CHECK(settings.run.pretrained == "yolov8s.pt");
  CHECK(settings.run.data == "coco8.yaml");
  CHECK(settings.schedule.epochs == 3);
  CHECK(settings.schedule.batch == 8);
  CHECK(settings.run.device == "cpu");
  // Ours: the resolved recipe loads back the same, pretrained=false included.
  const Settings scratch = load_settings(dir.file("args.yaml"), {"pretrained=false"});
  CHECK(scratch.run.pretrained.empty());
  CHECK(scratch.run.model == "yolov8s");
  write_text(dir / "ours.yaml", to_yaml(scratch));
  CHECK(to_yaml(load_settings(dir.file("ours.yaml"), {})) == to_yaml(scratch));
}

TEST_CASE("Ultralytics' values are converted as its cfg checks convert them", "[config][foreign]") {
  const auto settings = [](std::vector<std::string> overrides) {
    return load_settings(std::nullopt, overrides);
  };
  CHECK(settings({"device=[7]"}).run.device == "cuda:7");
  CHECK(settings({"device=-1"}).run.device == "idle");
  CHECK(settings({"device="}).run.device == "auto");
  CHECK(settings({"dropout=false"}).run.dropout == 0.0);
  CHECK(settings({"patience=0"}).output.patience == 0);
  CHECK(settings({"save_period=0"}).output.save_period == -1);
  CHECK(settings({"cos_lr=true"}).schedule.scheduler == SchedulerKind::cosine);
  CHECK(settings({"scheduler=onecycle", "cos_lr=false"}).schedule.scheduler ==
        SchedulerKind::onecycle);
  CHECK(settings({"imgsz=1920,1080"}).data.imgsz == 1920);
  CHECK(settings({"freeze=0,2"}).run.freeze.layers ==
        std::vector<std::string>{"model.0", "model.2"});
  CHECK(settings({"freeze=3"}).run.freeze.first_layers == 3);
  CHECK(settings({"name="}).output.name == Settings{}.output.name);
  TempDir dir("ultralytics-values");
  write_text(dir / "empty.yaml", "");
  CHECK_THAT(error_of(dir.file("empty.yaml"), {"device=mps"}),
             Catch::Contains("mps") && Catch::Contains("CPU and CUDA"));
  CHECK(settings({"optimizer=MuSGD"}).optim.kind == OptimizerKind::musgd);  // 8.4's spelling
  CHECK_THAT(error_of(dir.file("empty.yaml"), {"optimizer=RAdam"}), Catch::Contains("RAdam"));
  // The file and the command line are merged before anything is checked.
  write_text(dir / "args.yaml",
             "device: mps\nproject: ''\nfreeze: [10]\nverbose: false\nhalf: true\n");
  CHECK_THAT(error_of(dir.file("args.yaml")),
             Catch::Contains("args.yaml:1:9") && Catch::Contains("mps"));
  const Settings merged = load_settings(dir.file("args.yaml"), {"device=cpu"});
  CHECK(merged.run.device == "cpu");
  CHECK(merged.run.freeze.layers == std::vector<std::string>{"model.10"});
  CHECK(merged.output.project.empty());  // '' is Ultralytics' None: runs_dir/<task>
  // EasyOCR's '' is a value of symbol, and the default of experiment_name.
  write_text(dir / "easyocr.yaml",
             "experiment_name: ''\nsymbol: ''\nlang_char: ''\nnumber: '0123456789'\n");
  const Settings easyocr = load_settings(dir.file("easyocr.yaml"), {});
  CHECK(easyocr.ocr.symbol.empty());
  CHECK(easyocr.ocr.lang_char.empty());
  CHECK(easyocr.output.name == Settings{}.output.name);
}

TEST_CASE("pretrained is Ultralytics' boolean or a path", "[config][foreign]") {
  CHECK(load_settings(std::nullopt, {"model=yolov8s.pt", "pretrained=True"}).run.pretrained ==
        "yolov8s.pt");
  const Settings scratch = load_settings(std::nullopt, {"model=yolov8s.pt", "pretrained=False"});
  CHECK(scratch.run.pretrained.empty());
  CHECK(scratch.run.model == "yolov8s");
  CHECK(load_settings(std::nullopt, {"pretrained=true"}).run.pretrained.empty());
  CHECK(load_settings(std::nullopt, {"pretrained=weights/best.pt"}).run.pretrained ==
        "weights/best.pt");
}

TEST_CASE("a recipe's problems come all at once, each at its file:line:column",
          "[config][foreign]") {
  TempDir dir("problems");
  write_text(dir / "r.yaml",
             "epochs: 3\n"
             "device:\n"
             "batch: eight\n"
             "model:\n"
             "acumulate: 2\n"
             "rect: True\n"
             "cls_pw: 0.5\n"
             "verbose: False\n");
  const std::string error = error_of(dir.file("r.yaml"), {"mode=val"});
  INFO(error);
  CHECK_THAT(error, Catch::StartsWith("5 problems in the recipe:"));
  CHECK_THAT(error, Catch::Contains("r.yaml:3:8: key 'batch'"));
  CHECK_THAT(error, Catch::Contains("r.yaml:5:1: unknown key 'acumulate'") &&
                        Catch::Contains("'accumulate'"));
  CHECK_THAT(error,
             Catch::Contains("r.yaml:6:7: rect=True (Ultralytics) asks for what is not done here"));
  CHECK_THAT(error, Catch::Contains("r.yaml:7:9:") && Catch::Contains("class weights"));
  CHECK_THAT(error,
             Catch::Contains("override 'mode=val'") && Catch::Contains("the mode is the command"));
  CHECK(error.find("verbose") == std::string::npos);
  // An empty value is the key's default, and a problem right after one is placed on its own line.
  write_text(dir / "empty.yaml", "model:\ndata:\nimgsz:\nfliplr: 2\n");
  CHECK_THAT(error_of(dir.file("empty.yaml")),
             Catch::StartsWith(dir.file("empty.yaml") + ":4:9: key 'fliplr'"));
  write_text(dir / "unknown.yaml", "epochs: 3\nnot_a_key:\n");
  CHECK_THAT(error_of(dir.file("unknown.yaml")),
             Catch::Contains("unknown.yaml:2:1: unknown key 'not_a_key'"));
}

TEST_CASE("EasyOCR's en_filtered config is a text-recognition recipe", "[config][foreign][ocr]") {
  TempDir dir("easyocr-config");
  SECTION("as it is, every key is taken in one run") {
    write_text(dir / "en.yaml", en_filtered_config());
    const Settings settings = load_settings(dir.file("en.yaml"), {});
    CHECK(settings.run.task == TaskKind::ocr);
    CHECK(settings.optim.kind == OptimizerKind::adadelta);
    CHECK(settings.optim.lr0 == Approx(1.0));
    CHECK(settings.optim.rho == Approx(0.95));
    CHECK(settings.schedule.updates == 300000);
    CHECK(settings.output.val_interval == 20000);
    CHECK(settings.ocr.train_data == "all_data");
    CHECK(settings.ocr.valid_data == "all_data/en_val");
  }
  SECTION("with our optimizer, every other key is taken with its EasyOCR meaning") {
    write_text(dir / "en.yaml", en_filtered_config(kOurOptimizer));
    CapturedLog log;
    const Settings settings = load_settings(dir.file("en.yaml"), {});
    CHECK(settings.run.task == TaskKind::ocr);
    CHECK(settings.run.model == "crnn");
    CHECK(settings.output.name == "en_filtered");
    CHECK(settings.run.seed == 1111);
    CHECK(settings.schedule.batch == 32);
    // Its iterations are optimizer updates: the length and the validation interval in updates.
    CHECK(settings.schedule.updates == 300000);
    CHECK(settings.output.val_interval == 20000);
    CHECK(settings.optim.grad_clip == Approx(5));
    CHECK(settings.ocr.train_data == "all_data");
    CHECK(settings.ocr.valid_data == "all_data/en_val");
    CHECK(settings.ocr.select_data == std::vector<std::string>{"en_train_filtered"});
    CHECK(settings.ocr.batch_ratio == std::vector<double>{1.0});
    CHECK(settings.ocr.sensitive);
    CHECK(settings.ocr.contrast_adjust == 0.0);  // False, then 0.0
    CHECK(settings.ocr.img_h == 64);
    CHECK(settings.run.pretrained.empty());
    CHECK(settings.run.freeze.empty());
    CHECK_THAT(log.text(), Catch::Contains("EasyOCR's experiment_name is name here"));
    // batch_size is timm's too: in EasyOCR's file it is said as EasyOCR's.
    CHECK_THAT(log.text(), Catch::Contains("en.yaml:9:1: EasyOCR's batch_size is batch here"));
    CHECK(log.text().find("timm's") == std::string::npos);
    CHECK_THAT(log.text(), Catch::Contains("FT, PAD"));
    // Its beta1 (0.9, which is also the beta1 its train.py leaves Adam at) is momentum here.
    CHECK(settings.optim.momentum == Approx(0.9));
  }
  SECTION("EasyOCR's '-' lists, 'None' characters, freezes and recognizer stages") {
    const Settings settings = load_settings(
        std::nullopt, {"select_data=MJ-ST", "batch_ratio=0.5-0.5", "lang_char=None",
                       "freeze_FeatureFxtraction=True", "freeze_SequenceModeling=true"});
    CHECK(settings.run.task == TaskKind::ocr);
    CHECK(settings.ocr.select_data == std::vector<std::string>{"MJ", "ST"});
    CHECK(settings.ocr.batch_ratio == std::vector<double>{0.5, 0.5});
    CHECK(settings.ocr.charset == "train_labels");
    CHECK(load_settings(std::nullopt, {"optim=False"}).optim.kind == OptimizerKind::adadelta);
    CHECK(load_settings(std::nullopt, {"optim=adam", "rho=0.9"}).optim.kind == OptimizerKind::adam);
    CHECK_THROWS_WITH(load_settings(std::nullopt, {"optim=sgd"}),
                      Catch::Contains("False (Adadelta) or adam"));
    CHECK(settings.run.freeze.layers ==
          std::vector<std::string>{"FeatureExtraction", "SequenceModeling"});
    // EasyOCR's stage names, in its spelling or any case.
    const Settings stages = load_settings(
        std::nullopt, {"Transformation=TPS", "FeatureExtraction=ResNet", "SequenceModeling=None",
                       "Prediction=attn", "num_fiducial=10"});
    CHECK(stages.ocr.transformation == OcrTransformation::tps);
    CHECK(stages.ocr.feature_extraction == OcrFeatureExtraction::resnet);
    CHECK(stages.ocr.sequence_modeling == OcrSequenceModeling::none);
    CHECK(stages.ocr.prediction == OcrPrediction::attn);
    CHECK(stages.ocr.num_fiducial == 10);
    CHECK(ocr_bucket_widths(stages.ocr) ==
          std::vector<int64_t>{stages.ocr.img_w});  // TPS: every line at imgW
    CHECK_THROWS_WITH(load_settings(std::nullopt, {"Transformation=TPS", "num_fiducial=9"}),
                      Catch::Contains("num_fiducial") && Catch::Contains("even"));
    CHECK_THROWS_WITH(load_settings(std::nullopt, {"FeatureExtraction=DenseNet"}),
                      Catch::Contains("FeatureExtraction") && Catch::Contains("VGG, RCNN, ResNet"));
    CHECK_THROWS_WITH(load_settings(std::nullopt, {"Prediction=Attn", "decode=beamsearch"}),
                      Catch::Contains("beam search is not offered"));
  }
}

TEST_CASE("docs/ultralytics.md and docs/easyocr.md are the ones the key table makes",
          "[config][foreign]") {
  INFO(
      "stale: regenerate with `build/trainer keys --markdown --from ultralytics > "
      "docs/ultralytics.md` (and easyocr)");
  CHECK(read_text(std::string(TRAINER_SOURCE_DIR) + "/docs/ultralytics.md") ==
        tool_keys_markdown(ForeignTool::ultralytics));
  CHECK(read_text(std::string(TRAINER_SOURCE_DIR) + "/docs/easyocr.md") ==
        tool_keys_markdown(ForeignTool::easyocr));
  CHECK(tool_keys_markdown(ForeignTool::easyocr).find("| unknown |") == std::string::npos);
}

TEST_CASE("EasyOCR's config and data layout train and validate through the binary",
          "[ocr][cli][foreign]") {
  TempDir dir("easyocr-layout");
  REQUIRE(run_trainer("data digits --out " + dir.file("digits") + " --train 24 --val 8 --seed 3")
              .exit_code == 0);
  // EasyOCR's folders as its config names them: train_data all_data, of which select_data picks
  // en_train_filtered (here a symlinked folder), and valid_data all_data/en_val.
  fs::create_directories(dir / "all_data");
  fs::create_directory_symlink(dir / "digits" / "train", dir / "all_data" / "en_train_filtered");
  fs::rename(dir / "digits" / "val", dir / "all_data" / "en_val");
  // Two labels hold a character outside EasyOCR's en set.
  const fs::path csv = dir / "digits" / "train" / "labels.csv";
  std::vector<OcrLabelLine> lines = read_ocr_labels(csv);
  std::string text = "filename,words\n";
  for (size_t i = 0; i < lines.size(); ++i) {
    text += lines[i].filename + "," + std::string(i < 2 ? "ü" : "");
    for (char32_t c : lines[i].words) text += static_cast<char>(c);
    text += "\n";
  }
  write_text(csv, text);
  std::map<std::string, std::string> replaced = kOurOptimizer;
  replaced["num_iter"] = "num_iter: 2";
  replaced["valInterval"] = "valInterval: 1";
  replaced["train_data"] = "train_data: '" + dir.file("all_data") + "'";
  replaced["valid_data"] = "valid_data: '" + (dir / "all_data" / "en_val").string() + "'";
  write_text(dir / "en.yaml", en_filtered_config(replaced));
  const std::string small =
      " imgH=32 imgW=128 buckets=32 output_channel=32 hidden_size=32 batch_size=8 workers=1 "
      "project=" +
      dir.file("runs");

  const CommandResult dropped = run_trainer("train --config " + dir.file("en.yaml") + small);
  INFO(dropped.output);
  CHECK(dropped.exit_code == 2);
  CHECK_THAT(dropped.output,
             Catch::Contains("2 of 24 labels dropped for characters outside the character set") &&
                 Catch::Contains("labels.csv:2 'ü") && Catch::Contains("labels.csv:3 'ü") &&
                 Catch::Contains("max_bad_fraction=0.01"));

  const CommandResult warned = run_trainer("train --config " + dir.file("en.yaml") + small +
                                           " max_bad_fraction=0.1 name=warned");
  INFO(warned.output);
  REQUIRE(warned.exit_code == 0);
  CHECK_THAT(warned.output, Catch::Contains("2 of 24 labels dropped"));

  // lang_char 'None' takes the characters of the labels: every label is kept.
  replaced["lang_char"] = "lang_char: 'None'";
  write_text(dir / "none.yaml", en_filtered_config(replaced));
  const CommandResult trained =
      run_trainer("train --config " + dir.file("none.yaml") + small + " contrast_adjust=0.4");
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  CHECK(trained.output.find("dropped") == std::string::npos);
  const CommandResult missing = run_trainer("train --config " + dir.file("none.yaml") + small +
                                            " name=missing valid_data=" + dir.file("nowhere"));
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output,
             Catch::Contains("valid_data=" + dir.file("nowhere") + " is not a folder"));
  CHECK_THAT(trained.output, Catch::Contains("ocr train: en_train_filtered 24 samples"));
  const fs::path run = dir / "runs" / "en_filtered";
  REQUIRE(fs::exists(run / "weights" / "last.pt"));
  CHECK_FALSE(fs::exists(dir / "runs" / "missing"));
  CHECK(load_checkpoint(run / "weights" / "last.pt").updates == 2);
  // valInterval 1: a validated row after each of the 2 updates.
  const ResultsTable results = read_results(run / "results.csv");
  REQUIRE(results.rows.size() == 2);
  const auto updates = std::find(results.header.begin(), results.header.end(), "updates");
  REQUIRE(updates != results.header.end());
  CHECK(results.rows[1].at(static_cast<size_t>(updates - results.header.begin())) == 2);
  CHECK_THAT(read_text(run / "args.yaml"), Catch::Contains("charset: ") && Catch::Contains("ü"));
  const CommandResult validated =
      run_trainer("val --weights " + (run / "weights" / "last.pt").string());
  INFO(validated.output);
  REQUIRE(validated.exit_code == 0);
  CHECK_THAT(validated.output, Catch::Contains("norm_ED"));
}
