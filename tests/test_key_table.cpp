// The key table is the one declaration of a recipe key: what the docs, the help, the resume
// check and the warnings say is read from it, so these tests check the table and what is made
// from it rather than a hand-kept copy.
#include <catch2/catch.hpp>

#include <set>

#include "config/key_docs.h"
#include "config/recipe_keys.h"
#include "config/timm_docs.h"
#include "config/timm_flags.h"
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
  CHECK(read_text(path) == timm_flags_markdown());
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
  std::set<std::string> spellings;
  for (const auto& [key, spelling] : foreign_spellings()) {
    INFO(spelling.name);
    CHECK(spellings.insert(spelling.name).second);
    CHECK(find_recipe_key(spelling.name) == nullptr);  // our own key always wins, so it would never be read
    CHECK((spelling.meaning == ForeignMeaning::same || !spelling.note.empty()));
  }
}

TEST_CASE("timm's flags point at keys of the table", "[config]") {
  for (const auto& [key, spelling] : timm_spellings()) {
    INFO(spelling.name);
    CHECK(spelling.tool == ForeignTool::timm);
    CHECK((key.empty() || find_recipe_key(key) != nullptr));
    CHECK((spelling.meaning == ForeignMeaning::different || !key.empty()));
  }
  for (const SharedFlagName& flag : timm_flags_named_like_our_keys()) {
    INFO(flag.name);
    CHECK(find_recipe_key(flag.name) != nullptr);
  }
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
    load_settings(std::nullopt, {"model=yolov8n", "label_smoothing=0.1", "imgH=32"});
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
    const std::string recipe = to_yaml(load_settings(std::nullopt, {"mosaic=0.5", "model=yolov8n"}));
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
