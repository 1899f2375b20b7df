// Every flag of timm's train.py has a row: the same as one of our keys, ours, ignored at the values
// that ask for nothing, or refused with the reason (issue 44). None is an unknown key.
#include <catch2/catch.hpp>

#include <set>

#include "config/command_arguments.h"
#include "config/foreign_keys.h"
#include "config/recipe_keys.h"
#include "families/recipes.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;

namespace {

// The long flags of every add_argument of train.py in huggingface/pytorch-image-models at
// aa4b5850c1543fa488abf260f18390eda46cf85d (timm 1.0.29.dev0, August 2026), in its order, aliases
// (--dr, --train-steps-per-epoch) included. Its positional data folder is `data`, our key; its
// short flags -b, -vb and -j are read as --batch-size, --validation-batch-size and --workers.
const std::vector<std::string> kTrainPyFlags = {
    "--config", "--data-dir", "--dataset", "--train-split", "--val-split", "--train-num-samples",
    "--val-num-samples", "--dataset-download", "--class-map", "--input-img-mode", "--input-key", "--target-key",
    "--dataset-trust-remote-code", "--model", "--pretrained", "--pretrained-path", "--initial-checkpoint",
    "--resume", "--no-resume-opt", "--num-classes", "--gp", "--img-size", "--in-chans", "--input-size", "--crop-pct",
    "--mean", "--std", "--interpolation", "--batch-size", "--validation-batch-size", "--channels-last", "--fuser",
    "--grad-accum-steps", "--grad-checkpointing", "--fast-norm", "--model-kwargs", "--head-init-scale",
    "--head-init-bias", "--torchcompile-mode", "--torchscript", "--torchcompile", "--device", "--amp", "--amp-dtype",
    "--model-dtype", "--no-ddp-bb", "--synchronize-step", "--local_rank", "--device-modules", "--opt", "--opt-eps",
    "--opt-betas", "--momentum", "--weight-decay", "--clip-grad", "--clip-mode", "--layer-decay",
    "--layer-decay-min-scale", "--layer-decay-no-opt-scale", "--opt-kwargs", "--sched", "--sched-on-updates", "--lr",
    "--lr-base", "--lr-base-size", "--lr-base-scale", "--lr-noise", "--lr-noise-pct", "--lr-noise-std",
    "--lr-cycle-mul", "--lr-cycle-decay", "--lr-cycle-limit", "--lr-k-decay", "--warmup-lr", "--min-lr", "--epochs",
    "--epoch-repeats", "--start-epoch", "--decay-milestones", "--decay-epochs", "--warmup-epochs", "--warmup-prefix",
    "--cooldown-epochs", "--patience-epochs", "--decay-rate", "--dr", "--no-aug", "--train-crop-mode", "--scale",
    "--ratio", "--hflip", "--vflip", "--color-jitter", "--color-jitter-prob", "--grayscale-prob",
    "--gaussian-blur-prob", "--aa", "--aug-repeats", "--aug-splits", "--jsd-loss", "--bce-loss", "--bce-sum",
    "--bce-target-thresh", "--bce-pos-weight", "--reprob", "--remode", "--recount", "--resplit", "--mixup",
    "--cutmix", "--cutmix-minmax", "--mixup-prob", "--mixup-switch-prob", "--mixup-mode", "--mixup-off-epoch",
    "--smoothing", "--train-interpolation", "--drop", "--drop-connect", "--drop-path", "--drop-block",
    "--bn-momentum", "--bn-eps", "--sync-bn", "--dist-bn", "--split-bn", "--model-ema", "--model-ema-force-cpu",
    "--model-ema-decay", "--model-ema-warmup", "--seed", "--worker-seeding", "--log-interval", "--val-interval",
    "--recovery-interval", "--checkpoint-hist", "--workers", "--save-images", "--pin-mem", "--no-prefetcher",
    "--output", "--experiment", "--eval-metric", "--tta", "--use-multi-epochs-loader", "--log-wandb",
    "--wandb-project", "--wandb-tags", "--wandb-resume-id", "--train-img-sizes", "--train-batch-sizes",
    "--train-size-probs", "--train-size-schedule", "--train-size-schedule-spread", "--train-size-random-mix",
    "--train-batches-per-epoch", "--train-steps-per-epoch", "--variable-batch-loss-scale", "--naflex-loader",
    "--naflex-train-seq-lens", "--naflex-max-seq-len", "--naflex-patch-sizes", "--naflex-patch-size-probs",
    "--naflex-loss-scale", "--naflex-patchify-channels-first", "--kd-model-name", "--kd-distill-type",
    "--kd-loss-type", "--distill-loss-weight", "--task-loss-weight", "--kd-temperature", "--kd-student-feature-dim",
    "--kd-teacher-feature-dim", "--kd-token-distill-type",
};

// Flags of earlier train.py releases that timm commands still carry.
const std::vector<std::string> kEarlierFlags = {"native_amp", "apex_amp", "jsd"};

std::string underscored(std::string flag) {
  flag.erase(0, 2);
  std::replace(flag.begin(), flag.end(), '-', '_');
  return flag;
}

}  // namespace

TEST_CASE("every flag of timm's train.py is a row of the key table, listed in docs/timm.md's order",
          "[config][foreign][timm]") {
  const std::vector<std::string>& order = tool_file_keys(ForeignTool::timm);
  std::set<std::string> flags(kEarlierFlags.begin(), kEarlierFlags.end());
  for (const std::string& flag : kTrainPyFlags) {
    const std::string name = underscored(flag);
    INFO(flag);
    CHECK(flags.insert(name).second);
    CHECK((find_recipe_key(name) != nullptr || find_spelling_of(ForeignTool::timm, name).has_value()));
  }
  // The docs' list is train.py's flags and nothing else.
  CHECK(std::set<std::string>(order.begin(), order.end()) == flags);
  CHECK(order.size() == flags.size());
}

TEST_CASE("timm's flags without a key here load at the values that ask for nothing, and say why otherwise",
          "[config][foreign][timm]") {
  const trainer::testing::CapturedLog log;
  size_t timm_rows = 0;
  for (const ForeignSpelling& spelling : keys_without_counterpart()) {
    if (spelling.tool != ForeignTool::timm) continue;
    ++timm_rows;
    INFO(spelling.name);
    CHECK(!spelling.note.empty());
    if (spelling.inert_values.empty()) continue;
    const std::string value = spelling.inert_values.front() == "*" ? "7" : spelling.inert_values.front();
    CHECK_NOTHROW(load_settings(std::nullopt, {"--" + spelling.name + "=" + value}));
  }
  CHECK(timm_rows == 111);
  // Asked for something, each says what to use instead, and none is a bare unknown key.
  for (const auto& [flag, reason] : std::vector<std::pair<std::string, std::string>>{
           {"--gp=max", "averaging"},
           {"--clip-mode=agc", "total L2 norm"},
           {"--layer-decay=0.65", "layer-wise"},
           {"--lr-cycle-limit=3", "warm restarts"},
           {"--bce-loss=true", "cross-entropy"},
           {"--drop-block=0.1", "--drop-path"},
           {"--ratio=0.5,2", "3/4 to 4/3"},
           {"--mean=0.5,0.5,0.5", "ImageNet's mean"}}) {
    INFO(flag);
    std::string name = flag.substr(0, flag.find('='));
    std::replace(name.begin() + 2, name.end(), '-', '_');
    const std::string override = name + flag.substr(flag.find('='));
    try {
      load_settings(std::nullopt, {override});
      FAIL("accepted");
    } catch (const UserError& error) {
      CHECK_THAT(error.what(), Catch::Contains(reason) && !Catch::Contains("lists every key"));
    }
  }
}

TEST_CASE("timm's flags of several values without a list key here take all their values", "[config][timm]") {
  CHECK(overrides_of_arguments({"--train-img-sizes", "224", "288", "--mean", "0.5", "0.5", "0.5"}) ==
        std::vector<std::string>{"--train_img_sizes=224,288", "--mean=0.5,0.5,0.5"});
}
