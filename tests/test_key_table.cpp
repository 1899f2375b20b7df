// The key table is the one declaration of a recipe key: what the docs, the help, the resume
// check and the warnings say is read from it, so these tests check the table and what is made
// from it rather than a hand-kept copy.
#include <catch2/catch.hpp>

#include <set>

#include "config/command_arguments.h"
#include "config/foreign_keys.h"
#include "config/key_docs.h"
#include "config/recipe_keys.h"
#include "families/recipes.h"
#include "test_helpers.h"

using namespace trainer;
using trainer::testing::CapturedLog;
using trainer::testing::read_text;

TEST_CASE("docs/recipe-keys.md is the one the key table makes", "[config]") {
  const std::string path = std::string(TRAINER_SOURCE_DIR) + "/docs/recipe-keys.md";
  INFO("stale: regenerate with `build/trainer keys --markdown > docs/recipe-keys.md`");
  CHECK(read_text(path) == recipe_keys_markdown());
}

TEST_CASE("docs/timm.md is the one the key table's timm spellings make", "[config]") {
  const std::string path = std::string(TRAINER_SOURCE_DIR) + "/docs/timm.md";
  INFO("stale: regenerate with `build/trainer keys --markdown --from timm > docs/timm.md`");
  CHECK(read_text(path) == tool_keys_markdown(ForeignTool::timm));
}

TEST_CASE("every row of the key table is complete and its names are unique", "[config]") {
  std::set<std::string> names;
  for (const RecipeKey& key : recipe_keys()) {
    INFO(key.name);
    CHECK(names.insert(key.name).second);
    CHECK_FALSE(key.help.empty());
    CHECK_FALSE(key.values.empty());
    CHECK(key.tasks != 0);
    CHECK((key.tasks & ~kAllTasks) == 0);
    // Printing a default and reading it back gives the same value: the docs' defaults are real.
    Settings settings;
    key.assign(settings, {key.show(Settings{}), false, "test"});
    CHECK(key.show(settings) == key.show(Settings{}));
  }
  std::set<std::pair<ForeignTool, std::string>> spellings;
  for (const auto& [key, spelling] : foreign_spellings()) {
    INFO(tool_name(spelling.tool) << " " << spelling.name);
    CHECK(spellings.insert({spelling.tool, spelling.name}).second);
    CHECK(find_recipe_key(spelling.name) == nullptr);  // our own key always wins, so it would never be read
    CHECK((spelling.meaning == ForeignMeaning::same || !spelling.note.empty()));
  }
}

TEST_CASE("timm's flags are the rows' timm spellings, in train.py's order", "[config]") {
  const std::vector<std::string>& order = tool_file_keys(ForeignTool::timm);
  std::set<std::string> spelled;
  for (const RecipeKey& key : recipe_keys()) {
    for (const ForeignSpelling& spelling : key.foreign) {
      if (spelling.tool == ForeignTool::timm) CHECK(spelled.insert(spelling.name).second);
    }
  }
  for (const ForeignSpelling& spelling : keys_without_counterpart()) {
    INFO(spelling.name);
    if (spelling.tool != ForeignTool::timm) continue;
    CHECK(spelled.insert(spelling.name).second);
    CHECK(spelling.meaning == ForeignMeaning::different);  // one with a meaning of ours is on its row
  }
  // Every timm spelling is listed in the order docs/timm.md follows, once, and nothing else is.
  CHECK(std::set<std::string>(order.begin(), order.end()) == spelled);
  CHECK(order.size() == spelled.size());
}

TEST_CASE("a name is looked up in the spellings of the tool whose file or flags are read", "[config][foreign]") {
  // batch_size is timm's and EasyOCR's: each is said as its own where its tool is known.
  CHECK(find_foreign_spelling("batch_size", ForeignTool::easyocr)->spelling.tool == ForeignTool::easyocr);
  CHECK(find_foreign_spelling("batch_size", ForeignTool::timm)->spelling.tool == ForeignTool::timm);
  // Ultralytics has none: as where the tool is not known (a recipe of ours), the first in table order.
  CHECK(find_foreign_spelling("batch_size", ForeignTool::ultralytics)->spelling.tool == ForeignTool::timm);
  CHECK(find_foreign_spelling("batch_size")->spelling.tool == ForeignTool::timm);
  CHECK(find_foreign_spelling("cos_lr", ForeignTool::easyocr)->spelling.tool == ForeignTool::ultralytics);
  CHECK_FALSE(find_foreign_spelling("epochs").has_value());  // timm's --epochs is our key
  CHECK(tool_of_keys({"epochs", "save", "cos_lr"}) == ForeignTool::ultralytics);
  CHECK(tool_of_keys({"batch_size", "lr", "experiment_name"}) == ForeignTool::easyocr);
  CHECK_FALSE(tool_of_keys({"epochs", "batch"}).has_value());
  CHECK_FALSE(tool_of_keys({"batch_size"}).has_value());  // timm's and EasyOCR's alike

  CapturedLog log;
  const auto timm = overrides_of_arguments({"-b", "16", "--lr", "0.5", "--epochs", "2"});
  CHECK(timm == std::vector<std::string>{"--batch_size=16", "--lr=0.5", "epochs=2"});
  const Settings settings = load_settings(std::nullopt, timm);
  CHECK(settings.schedule.batch == 16);
  CHECK_THAT(log.text(), Catch::Contains("override 'batch_size=16': timm's batch_size is batch here") &&
                             Catch::Contains("override 'lr=0.5': timm's lr is lr0 here"));
  // Ultralytics' key=value form with timm's name: timm's, as before (Ultralytics has no batch_size).
  load_settings(std::nullopt, {"batch_size=8"});
  CHECK_THAT(log.text(), Catch::Contains("override 'batch_size=8': timm's batch_size is batch here"));
}

TEST_CASE("the resume check allows exactly the keys the table marks resumable", "[config]") {
  std::set<std::string> resumable;
  for (const RecipeKey& key : recipe_keys()) {
    if (key.resumable) resumable.insert(key.name);
  }
  // The launch, loader, execution and run-folder keys; nothing that changes the trained weights.
  for (const char* name : {"epochs", "workers", "device", "nproc", "compile", "save_interval", "patience", "cache"}) {
    CHECK(resumable.count(name) == 1);
  }
  for (const char* name : {"batch", "accumulate", "lr0", "model", "seed", "amp", "imgsz", "optimizer"}) {
    CHECK(resumable.count(name) == 0);
  }
}

TEST_CASE("a key set for another task warns once, naming the key and the task", "[config]") {
  SECTION("detection's mixup on classification") {
    CapturedLog log;
    load_settings(std::nullopt, {"mixup=0.8"});
    CHECK_THAT(log.text(),
               Catch::Contains("mixup=0.8 does nothing for task=classify") && Catch::Contains("applies to detect"));
  }
  SECTION("label_smoothing on detection, imgH on classification") {
    CapturedLog log;
    load_settings(std::nullopt, {"model=yolov8n.yaml", "label_smoothing=0.1", "imgH=32"});
    CHECK_THAT(log.text(), Catch::Contains("label_smoothing=0.1 does nothing for task=detect") &&
                               Catch::Contains("classify and ocr"));
    CHECK_THAT(log.text(), Catch::Contains("imgH=32 does nothing for task=detect"));
  }
  SECTION("keys of the task, and other tasks' keys at their defaults, are quiet") {
    CapturedLog log;
    load_settings(std::nullopt, {"model=crnn", "imgH=32", "dropout=0.1", "mixup=0", "mosaic=1.0"});
    CHECK(log.text().find("does nothing") == std::string::npos);
  }
  SECTION("a checkpoint's own recipe does not warn again, its overrides do") {
    const std::string recipe =
        to_yaml(load_settings(std::nullopt, {"mosaic=0.5", "model=yolov8n.yaml"}));
    CapturedLog log;
    const Settings classify = load_settings_from_yaml(recipe, "ckpt:recipe", {"erasing=0.25"});
    CHECK(classify.run.task == TaskKind::detect);
    CHECK(log.text().find("mosaic") == std::string::npos);
    CHECK_THAT(log.text(), Catch::Contains("erasing=0.25 does nothing for task=detect"));
  }
}

TEST_CASE("trainer train --help lists every key from the table", "[config][cli]") {
  const std::string help = recipe_keys_help();
  for (const RecipeKey& key : recipe_keys()) {
    INFO(key.name);
    CHECK(help.find("\n  " + key.name + " = ") != std::string::npos);
  }
  const auto result = trainer::testing::run_trainer("train --help");
  CHECK(result.exit_code == 0);
  CHECK_THAT(result.output, Catch::Contains("Batch geometry and schedule:") && Catch::Contains("  accumulate = auto"));
}
