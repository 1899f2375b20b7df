// Other tools' spellings taken as our keys set those keys: each, typed with a value unlike our
// default, leaves that value in the resolved recipe, the text a run writes as args.yaml
// (engine/training_run.cpp) and `trainer keys` prints. The spellings come from the key table, so
// a spelling added there without a row below fails here.
#include <catch2/catch.hpp>

#include <map>

#include "config/command_arguments.h"
#include "config/foreign_keys.h"
#include "config/recipe_keys.h"
#include "families/recipes.h"
#include "test_helpers.h"

using namespace trainer;

namespace {

// Our key -> a value it accepts that is not its default, as the resolved recipe prints it.
const std::map<std::string, std::string> kValueUnlikeDefault = {
    {"task", "detect"},
    {"model", "resnet34"},
    {"data", "somewhere"},
    {"epochs", "7"},
    {"time", "0.5"},
    {"patience", "9"},
    {"batch", "12"},
    {"imgsz", "48"},
    {"save_period", "3"},
    {"keep_best", "3"},
    {"num_classes", "5"},
    {"cache", "ram"},
    {"device", "cpu"},
    {"workers", "3"},
    {"project", "elsewhere"},
    {"name", "named"},
    {"exist_ok", "true"},
    {"pretrained", "weights.pt"},
    {"optimizer", "sgd"},
    {"seed", "5"},
    {"deterministic", "false"},
    {"single_cls", "true"},
    {"close_mosaic", "4"},
    {"resume", "true"},
    {"amp", "off"},
    {"fraction", "0.5"},
    {"freeze", "2"},
    {"dropout", "0.25"},
    {"drop_path", "0.125"},
    {"val", "false"},
    {"val_interval", "40"},
    {"conf", "0.125"},
    {"iou", "0.5"},
    {"max_det", "50"},
    {"end2end", "false"},
    {"plots", "false"},
    {"lr0", "0.0125"},
    {"lrf", "0.125"},
    {"momentum", "0.875"},
    {"weight_decay", "0.00025"},
    {"warmup_epochs", "2"},
    {"warmup_momentum", "0.75"},
    {"warmup_bias_lr", "0.05"},
    {"box", "6.5"},
    {"cls", "0.75"},
    {"dfl", "1.25"},
    {"label_smoothing", "0.125"},
    {"nbs", "32"},
    {"hsv_h", "0.025"},
    {"hsv_s", "0.5"},
    {"hsv_v", "0.25"},
    {"degrees", "5"},
    {"translate", "0.25"},
    {"scale", "0.25"},
    {"shear", "2"},
    {"perspective", "0.0005"},
    {"flipud", "0.25"},
    {"fliplr", "0.25"},
    {"mosaic", "0.5"},
    {"mixup", "0.25"},
    {"auto_augment", "randaugment"},
    {"erasing", "0.25"},
    {"erasing_mode", "pixel"},
    {"erasing_count", "3"},
    {"crop_fraction", "0.875"},
    {"mixup_prob", "0.5"},
    {"mixup_switch_prob", "0.25"},
    {"accumulate", "3"},
    {"eps", "0.001"},
    {"grad_clip", "5"},
    {"scheduler", "cosine"},
    {"cutmix_alpha", "0.5"},
    {"ema", "false"},
    {"ema_decay", "0.99"},
    {"compile", "max-autotune"},
    {"sched_on_updates", "false"},
    {"min_lr", "0.0005"},
    {"warmup_lr", "0.0005"},
    {"decay_epochs", "30"},
    {"decay_milestones", "30,60"},
    {"decay_rate", "0.5"},
    {"cooldown_epochs", "2"},
    {"lr_base_batch", "128"},
    {"lr_scale", "sqrt"},
    {"val_batch", "24"},
    {"norm", "syncbn"},
    {"mixup_alpha", "0.25"},
};

// timm's flags whose command, being in timm's dialect, reads them with timm's meaning: --mixup is
// classification's MixUp alpha.
const std::map<std::string, std::string> kTimmDialectKeys = {{"mixup", "mixup_alpha"}};

// Spellings whose value is not our key's: Ultralytics' cos_lr=true is scheduler=cosine.
// timm's --sync-bn is a switch; --input-size C H W gives imgsz H.
const std::map<std::string, std::string> kTypedOtherwise = {
    {"cos_lr", "true"}, {"sync_bn", "true"}, {"input_size", "3,48,48"}};

// Other tools' keys and flags spelled otherwise than ours, and the key of ours each is
// (docs/ultralytics.md, docs/timm.md), kept here by hand: a spelling moved to another row of the
// key table, or dropped from it, shows.
const std::map<std::string, std::string> kOwnSpellings = {
    {"cos_lr", "scheduler"},
    {"data_dir", "data"},
    {"initial_checkpoint", "pretrained"},
    {"img_size", "imgsz"},
    {"crop_pct", "crop_fraction"},
    {"batch_size", "batch"},
    {"grad_accum_steps", "accumulate"},
    {"opt", "optimizer"},
    {"opt_eps", "eps"},
    {"checkpoint_hist", "keep_best"},
    {"clip_grad", "grad_clip"},
    {"sched", "scheduler"},
    {"lr", "lr0"},
    {"hflip", "fliplr"},
    {"reprob", "erasing"},
    {"remode", "erasing_mode"},
    {"recount", "erasing_count"},
    {"aa", "auto_augment"},
    {"drop", "dropout"},
    {"cutmix", "cutmix_alpha"},
    {"smoothing", "label_smoothing"},
    {"model_ema", "ema"},
    {"model_ema_decay", "ema_decay"},
    {"output", "project"},
    {"experiment", "name"},
    {"native_amp", "amp"},
    {"lr_base", "lr0"},
    {"lr_base_size", "lr_base_batch"},
    {"lr_base_scale", "lr_scale"},
    {"dr", "decay_rate"},
    {"validation_batch_size", "val_batch"},
    {"input_size", "imgsz"},
    {"sync_bn", "norm"},
};

struct TakenSpelling {
  ForeignTool tool;
  std::string spelling;  // as the tool writes it, dashes as underscores
  std::string key;       // ours
};

// Ultralytics' and timm's keys and flags that the key table takes as ours, by our name or by a
// spelling of their own (EasyOCR's are read from its config files: test_foreign_recipes.cpp).
std::vector<TakenSpelling> spellings_taken_as_ours() {
  std::vector<TakenSpelling> taken;
  for (const ForeignTool tool : {ForeignTool::ultralytics, ForeignTool::timm}) {
    for (const std::string& name : tool_file_keys(tool)) {
      if (find_recipe_key(name)) {
        taken.push_back({tool, name, name});
      } else if (const std::optional<ForeignMatch> match = find_spelling_of(tool, name);
                 match && match->key && match->spelling.meaning == ForeignMeaning::same) {
        taken.push_back({tool, name, match->key->name});
      }
    }
  }
  return taken;
}

// `name=value` as Ultralytics' command line has it, `--name value` as timm's.
std::vector<std::string> typed(const TakenSpelling& taken, const std::string& value) {
  if (taken.tool == ForeignTool::ultralytics) return {taken.spelling + "=" + value};
  std::string flag = "--" + taken.spelling;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return {flag, value};
}

}  // namespace

TEST_CASE("every Ultralytics and timm spelling taken as one of our keys sets that key",
          "[config][foreign]") {
  const trainer::testing::CapturedLog
      log;  // each override's info line, kept out of the test's output
  const std::vector<TakenSpelling> spellings = spellings_taken_as_ours();
  // 60 Ultralytics keys (end2end and time among them) and 25 timm flags named as ours (drop_path,
  // num_classes, device and val_interval among them), and the tools' own spellings.
  CHECK(spellings.size() == 60 + 25 + kOwnSpellings.size());
  const std::string defaults = "\n" + to_yaml(load_settings(std::nullopt, {}));
  for (const TakenSpelling& taken : spellings) {
    INFO(tool_name(taken.tool) << "'s " << taken.spelling << " (the key table: our " << taken.key
                               << ")");
    // timm's --val-interval counts epochs: its one value offered becomes our default (test below).
    if (taken.tool == ForeignTool::timm && taken.spelling == "val_interval") continue;
    std::string key = taken.key;
    if (taken.spelling != taken.key) {
      const auto expected = kOwnSpellings.find(taken.spelling);
      REQUIRE(expected != kOwnSpellings.end());  // a new spelling: add it above, with its key
      key = expected->second;
    }
    if (const auto timm = kTimmDialectKeys.find(taken.spelling);
        taken.tool == ForeignTool::timm && timm != kTimmDialectKeys.end())
      key = timm->second;
    const auto value = kValueUnlikeDefault.find(key);
    INFO("kValueUnlikeDefault needs a row for " << key);
    REQUIRE(value != kValueUnlikeDefault.end());
    const std::string line = "\n" + key + ": " + value->second + "\n";
    CHECK_THAT(defaults, !Catch::Contains(line));
    const auto otherwise = kTypedOtherwise.find(taken.spelling);
    const std::string typed_value =
        otherwise == kTypedOtherwise.end() ? value->second : otherwise->second;
    const Settings settings =
        load_settings(std::nullopt, overrides_of_arguments(typed(taken, typed_value)));
    CHECK_THAT("\n" + to_yaml(settings), Catch::Contains(line));
  }
}
