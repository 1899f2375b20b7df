// The OCR path through the real binary: the embedded generators, a tiny training run, val and
// predict from its checkpoint, and the errors a user meets first.
#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "data/ocr/ocr_labels.h"
#include "run/results_csv.h"
#include "test_helpers.h"

using namespace trainer::testing;

namespace {

const std::string kTinyCrnn =
    " task=ocr model=crnn imgH=32 imgW=128 buckets=32 output_channel=32 hidden_size=32 batch=8 accumulate=2"
    " workers=1 optimizer=adamw lr0=0.002 warmup_epochs=0 -q";

}  // namespace

TEST_CASE("trainer data digits writes a reproducible EasyOCR set with disjoint glyph splits", "[ocr][cli]") {
  TempDir dir("ocr-digits");
  const std::string args = " --train 40 --val 12 --seed 5 --min-length 2 --max-length 4";
  const CommandResult first = run_trainer("data digits --out " + dir.file("a") + args);
  REQUIRE(first.exit_code == 0);
  CHECK(first.output.find("40 training and 12 validation images") != std::string::npos);
  REQUIRE(run_trainer("data digits --out " + dir.file("b") + args).exit_code == 0);
  const auto train = trainer::read_ocr_labels(dir / "a" / "train" / "labels.csv");
  CHECK(train.size() == 40);
  CHECK(trainer::read_ocr_labels(dir / "a" / "val" / "labels.csv").size() == 12);
  for (const auto& line : train) {
    CHECK(line.words.size() >= 2);
    CHECK(line.words.size() <= 4);
    CHECK(std::all_of(line.words.begin(), line.words.end(), [](char32_t c) { return c >= U'0' && c <= U'9'; }));
  }
  // glyphs.csv names each digit's source cell (row * 100 + column; five rows per digit): it must
  // agree with the label, and no cell may feed both splits.
  const auto cells_of = [&](const char* split) {
    std::set<int> cells;
    std::istringstream table(read_text(dir / "a" / split / "glyphs.csv"));
    std::string row;
    std::getline(table, row);
    CHECK(row == "filename,cells");
    const auto labels = trainer::read_ocr_labels(dir / "a" / split / "labels.csv");
    size_t i = 0;
    for (; std::getline(table, row); ++i) {
      REQUIRE(i < labels.size());
      CHECK(row.substr(0, row.find(',')) == labels[i].filename);
      std::istringstream numbers(row.substr(row.find(',') + 1));
      size_t position = 0;
      for (int cell; numbers >> cell; ++position) {
        REQUIRE(position < labels[i].words.size());
        CHECK(static_cast<char32_t>(U'0' + cell / 100 / 5) == labels[i].words[position]);
        cells.insert(cell);
      }
      CHECK(position == labels[i].words.size());
    }
    CHECK(i == labels.size());
    return cells;
  };
  const std::set<int> train_cells = cells_of("train"), val_cells = cells_of("val");
  CHECK(!val_cells.empty());
  for (const int cell : val_cells) {
    CHECK(cell % 10 == 9);  // validation keeps every tenth glyph of each digit
    CHECK(train_cells.count(cell) == 0);
  }
  CHECK(read_text(dir / "a" / "train" / "labels.csv") == read_text(dir / "b" / "train" / "labels.csv"));
  CHECK(read_text(dir / "a" / "val" / "000003.png") == read_text(dir / "b" / "val" / "000003.png"));

  const CommandResult again = run_trainer("data digits --out " + dir.file("a") + args);
  CHECK(again.exit_code == 2);
  CHECK(again.output.find("--force") != std::string::npos);
  CHECK(run_trainer("data digits --force --out " + dir.file("a") + args).exit_code == 0);
}

TEST_CASE("a tiny CRNN trains on digits, validates and reads images through the binary", "[ocr][cli]") {
  TempDir dir("ocr-train");
  REQUIRE(run_trainer("data digits --out " + dir.file("digits") + " --train 64 --val 16").exit_code == 0);
  const CommandResult trained = run_trainer("train data=" + dir.file("digits") + " charset=0123456789 epochs=2 project=" +
                                            dir.file("runs") + " name=digits" + kTinyCrnn);
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  CHECK(trained.output.find("accuracy") != std::string::npos);
  const auto run = dir / "runs" / "digits";
  const std::string results = read_text(run / "results.csv");
  for (const char* column : {"ctc", "accuracy", "norm_ED", "CER"}) CHECK(results.find(column) != std::string::npos);
  CHECK(std::count(results.begin(), results.end(), '\n') == 3);  // header and one row per epoch
  CHECK(!cv::imread((run / "train_batch0.jpg").string()).empty());
  CHECK_FALSE(std::filesystem::exists(run / "confusion_matrix.csv"));  // text has no class matrix
  // R2: width buckets bound the shapes a graph executor captures: 4 widths up to imgW 128, each
  // with at most one short last batch per epoch.
  const trainer::ResultsTable table = trainer::read_results(run / "results.csv");
  const auto column = std::find(table.header.begin(), table.header.end(), "input_shapes");
  REQUIRE(column != table.header.end());
  const double shapes = table.rows.back().at(static_cast<size_t>(column - table.header.begin()));
  CHECK(shapes >= 2);
  CHECK(shapes <= 8);
  CHECK_THAT(trained.output, Catch::Contains("execution: eager; " + std::to_string(static_cast<int>(shapes)) +
                                             " input shape(s), 0 graph capture(s)"));

  const CommandResult val = run_trainer("val --weights " + (run / "weights" / "last.pt").string());
  INFO(val.output);
  REQUIRE(val.exit_code == 0);
  CHECK(val.output.find("norm_ED") != std::string::npos);

  const CommandResult predicted =
      run_trainer("predict --weights " + (run / "weights" / "last.pt").string() + " --source " + dir.file("digits/val"));
  INFO(predicted.output);
  REQUIRE(predicted.exit_code == 0);
  CHECK(count_lines(predicted.output, ".png: ") == 16);
}

TEST_CASE(
    "a tiny TPS-ResNet-BiLSTM-Attn trains on digits, validates, reads images and is not exported",
    "[ocr][cli]") {
  TempDir dir("ocr-attn");
  REQUIRE(
      run_trainer("data digits --out " + dir.file("digits") + " --train 32 --val 8 --max-length 4")
          .exit_code == 0);
  const CommandResult trained =
      run_trainer("train data=" + dir.file("digits") +
                  " charset=0123456789 epochs=2 project=" + dir.file("runs") +
                  " name=attn task=ocr model=crnn imgH=32 imgW=64 output_channel=32 hidden_size=16 "
                  "batch=8 workers=1"
                  " optimizer=adamw lr0=0.002 warmup_epochs=0 batch_max_length=4 num_fiducial=6 "
                  "Transformation=TPS"
                  " FeatureExtraction=ResNet SequenceModeling=BiLSTM Prediction=Attn -q");
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  const auto run = dir / "runs" / "attn";
  const trainer::ResultsTable table = trainer::read_results(run / "results.csv");
  for (const char* column : {"train/attn", "val/attn", "accuracy", "norm_ED", "CER"}) {
    INFO(column);
    CHECK(std::find(table.header.begin(), table.header.end(), column) != table.header.end());
  }
  CHECK(table.rows.size() == 2);
  CHECK_THAT(read_text(run / "args.yaml"),
             Catch::Contains("Transformation: TPS\n") && Catch::Contains("Prediction: Attn\n"));

  const std::string weights = (run / "weights" / "last.pt").string();
  const CommandResult val = run_trainer("val --weights " + weights);
  INFO(val.output);
  REQUIRE(val.exit_code == 0);
  CHECK(val.output.find("norm_ED") != std::string::npos);
  const CommandResult predicted =
      run_trainer("predict --weights " + weights + " --source " + dir.file("digits/val"));
  INFO(predicted.output);
  REQUIRE(predicted.exit_code == 0);
  CHECK(count_lines(predicted.output, ".png: ") == 8);

  const CommandResult exported = run_trainer("export --weights " + weights + " format=onnx");
  INFO(exported.output);
  CHECK(exported.exit_code == 2);
  CHECK_THAT(exported.output,
             Catch::Contains("Transformation TPS") && Catch::Contains("OpenCV 4.6"));
}

#ifndef TRAINER_HAVE_FREETYPE
TEST_CASE("without OpenCV's freetype module, trainer data printed says what it lacks", "[ocr][cli]") {
  TempDir dir("ocr-printed");
  const CommandResult printed = run_trainer("data printed --out " + dir.file("latin") + " --train 8 --val 4");
  INFO(printed.output);
  CHECK(printed.exit_code == 2);
  CHECK(printed.output.find("no OpenCV freetype module") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "latin"));
}
#else
TEST_CASE("trainer data printed renders Latin and Chinese lines per font family", "[ocr][cli]") {
  TempDir dir("ocr-printed");
  const CommandResult latin = run_trainer("data printed --out " + dir.file("latin") + " --train 8 --val 4 --max-length 12");
  INFO(latin.output);
  REQUIRE(latin.exit_code == 0);
  const auto folders = trainer::ocr_label_folders(dir / "latin" / "train");
  REQUIRE_FALSE(folders.empty());
  CHECK(std::find(folders.begin(), folders.end(), "dejavu") != folders.end());
  size_t lines = 0;
  for (const auto& folder : folders) {
    for (const auto& line : trainer::read_ocr_labels(dir / "latin" / "train" / folder / "labels.csv")) {
      ++lines;
      CHECK(line.words.size() <= 12);
      CHECK_FALSE(line.words.empty());
      CHECK(std::filesystem::file_size(dir / "latin" / "train" / folder / line.filename) > 0);
    }
  }
  CHECK(lines == 8);

  const CommandResult chinese =
      run_trainer("data printed --script chinese --out " + dir.file("chinese") + " --train 6 --val 2");
  INFO(chinese.output);
  REQUIRE(chinese.exit_code == 0);
  const auto chinese_folders = trainer::ocr_label_folders(dir / "chinese" / "train");
  REQUIRE_FALSE(chinese_folders.empty());
  const auto chinese_lines = trainer::read_ocr_labels(dir / "chinese" / "train" / chinese_folders[0] / "labels.csv");
  REQUIRE_FALSE(chinese_lines.empty());
  CHECK(std::any_of(chinese_lines[0].words.begin(), chinese_lines[0].words.end(), [](char32_t c) { return c >= 0x4E00; }));

  // charset=labels is pinned into the saved recipe, so val rebuilds the same head from the checkpoint.
  const CommandResult trained = run_trainer("train data=" + dir.file("chinese") + " charset=labels sensitive=true epochs=1 project=" +
                                            dir.file("runs") + " name=zh" + kTinyCrnn);
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  const std::string args = read_text(dir / "runs" / "zh" / "args.yaml");
  CHECK(args.find("charset: labels") == std::string::npos);
  CHECK(run_trainer("val --weights " + dir.file("runs/zh/weights/last.pt")).exit_code == 0);
}
#endif

TEST_CASE("ocr errors name what to fix", "[ocr][cli]") {
  TempDir dir("ocr-errors");
  const CommandResult no_data = run_trainer("train data=" + dir.file("nothing") + " project=" + dir.file("runs") + kTinyCrnn);
  CHECK(no_data.exit_code == 2);
  CHECK(no_data.output.find("trainer data digits") != std::string::npos);

  write_text(dir / "set" / "train" / "labels.csv", "filename,words\nthere.png,12\nmissing.png,34\n");
  write_text(dir / "set" / "val" / "labels.csv", "filename,words\nthere.png,56\n");
  for (const char* split : {"train", "val"}) {
    REQUIRE(cv::imwrite((dir / "set" / split / "there.png").string(), cv::Mat(32, 64, CV_8U, cv::Scalar(200))));
  }
  const CommandResult missing = run_trainer("train data=" + dir.file("set") + " project=" + dir.file("runs") + kTinyCrnn);
  CHECK(missing.exit_code == 2);
  CHECK(missing.output.find("train/labels.csv:3") != std::string::npos);
  CHECK(missing.output.find("missing.png") != std::string::npos);

  const CommandResult wrong_model = run_trainer("train task=ocr model=resnet18 data=" + dir.file("set"));
  CHECK(wrong_model.exit_code == 2);
  CHECK(wrong_model.output.find("trains task=classify, but task=ocr") != std::string::npos);
  CHECK(run_trainer("train task=ocr imgH=16").exit_code == 2);
}
