// timm's documented train.py commands (hfdocs/source/training_script.mdx of
// huggingface/pytorch-image-models) with the launcher `./distributed_train.sh N` replaced by
// `trainer train`, --model resnet50 for the architectures we do not have, and a tiny ImageFolder
// in timm's layout (train/ and validation/). As typed, each stops at once listing every option
// that is not offered here, all in one run; without those options it trains (those that ask for
// nothing refused train as typed).
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "test_helpers.h"

using namespace trainer::testing;

namespace {

struct DocumentedCommand {
  std::string arguments;             // after the launcher, DATA for the data folder
  std::vector<std::string> refused;  // the flags the error must name (our spelling), dropped for the run
  // Lines of the run's args.yaml that the command's other flags must give, in our keys (--epochs,
  // -b and -j are the test's own). --amp gives amp: auto, which is also the default, and
  // --model-ema and --model-ema-decay 0.9999 give our defaults too: the table of foreign spellings
  // (test_key_table.cpp) shows those flags take effect with values that differ from the defaults.
  std::vector<std::string> effects;
};

// The MobileNetV3 line's `/--data-dir imagenet/` is a typo of the page, written as meant.
const std::vector<DocumentedCommand> kCommands = {
    {"--data-dir DATA --model resnet50 --sched cosine --epochs 150 --warmup-epochs 5 --lr 0.4 --reprob 0.5 "
     "--remode pixel --batch-size 256 --amp -j 4",
     {},
     {"model: resnet50", "scheduler: cosine", "warmup_epochs: 5", "lr0: 0.4", "erasing: 0.5", "erasing_mode: pixel",
      "amp: auto"}},
    {"--data-dir DATA --model resnet50 -b 128 --sched step --epochs 450 --decay-epochs 2.4 --decay-rate .97 --opt "
     "rmsproptf --opt-eps .001 -j 8 --warmup-lr 1e-6 --weight-decay 1e-5 --drop 0.3 --drop-path 0.2 --model-ema "
     "--model-ema-decay 0.9999 --aa rand-m9-mstd0.5 --remode pixel --reprob 0.2 --amp --lr .016",
     {},
     {"scheduler: step", "decay_epochs: 2.4", "decay_rate: 0.97", "warmup_lr: 1e-06", "optimizer: rmsproptf",
      "eps: 0.001", "weight_decay: 1e-05", "dropout: 0.3", "drop_path: 0.2", "ema: true", "ema_decay: 0.9999",
      "auto_augment: rand-m9-n2-mstd0.5", "erasing: 0.2", "amp: auto", "lr0: 0.016"}},
    {"--data-dir DATA --model resnet50 -b 128 --sched step --epochs 450 --decay-epochs 2.4 --decay-rate .969 --opt "
     "rmsproptf --opt-eps .001 -j 8 --warmup-lr 1e-6 --weight-decay 1e-5 --drop 0.3 --drop-path 0.2 --model-ema "
     "--model-ema-decay 0.9999 --aa rand-m9-mstd0.5 --remode pixel --reprob 0.3 --amp --lr .016 --dist-bn reduce",
     {"dist_bn"},
     {"scheduler: step", "decay_rate: 0.969", "optimizer: rmsproptf", "eps: 0.001", "weight_decay: 1e-05",
      "dropout: 0.3", "drop_path: 0.2", "ema: true", "ema_decay: 0.9999", "auto_augment: rand-m9-n2-mstd0.5",
      "erasing: 0.3", "amp: auto", "lr0: 0.016"}},
    {"--data-dir DATA --model resnet50 --lr 0.1 --warmup-epochs 5 --epochs 160 --weight-decay 1e-4 --sched cosine "
     "--reprob 0.4 --remode pixel -b 112",
     {},
     {"lr0: 0.1", "warmup_epochs: 5", "weight_decay: 0.0001", "scheduler: cosine", "erasing: 0.4",
      "erasing_mode: pixel"}},
    {"--data-dir DATA -b 64 --model resnet50 --sched cosine --epochs 200 --lr 0.05 --amp --remode pixel --reprob 0.6 "
     "--aug-splits 3 --aa rand-m9-mstd0.5-inc1 --resplit --split-bn --jsd --dist-bn reduce",
     {"aug_splits", "resplit", "split_bn", "jsd", "dist_bn"},
     {"scheduler: cosine", "lr0: 0.05", "amp: auto", "erasing: 0.6", "erasing_mode: pixel",
      "auto_augment: rand-m9-n2-mstd0.5-inc1"}},
    {"--data-dir DATA --model resnet50 -b 512 --sched step --epochs 600 --decay-epochs 2.4 --decay-rate .973 --opt "
     "rmsproptf --opt-eps .001 -j 7 --warmup-lr 1e-6 --weight-decay 1e-5 --drop 0.2 --drop-path 0.2 --model-ema "
     "--model-ema-decay 0.9999 --aa rand-m9-mstd0.5 --remode pixel --reprob 0.2 --amp --lr .064 --lr-noise 0.42 0.9",
     {"lr_noise"},
     {"scheduler: step", "decay_rate: 0.973", "warmup_lr: 1e-06", "optimizer: rmsproptf", "eps: 0.001",
      "weight_decay: 1e-05", "dropout: 0.2", "drop_path: 0.2", "ema: true", "ema_decay: 0.9999",
      "auto_augment: rand-m9-n2-mstd0.5", "erasing: 0.2", "amp: auto", "lr0: 0.064"}},
    {"--data-dir DATA --model resnet50 --lr 0.6 --warmup-epochs 5 --epochs 240 --weight-decay 1e-4 --sched cosine "
     "--reprob 0.4 --recount 3 --remode pixel --aa rand-m7-mstd0.5-inc1 -b 192 -j 6 --amp --dist-bn reduce",
     {"dist_bn"},
     {"lr0: 0.6", "warmup_epochs: 5", "weight_decay: 0.0001", "scheduler: cosine", "erasing: 0.4",
      "erasing_mode: pixel", "erasing_count: 3", "auto_augment: rand-m7-n2-mstd0.5-inc1", "amp: auto"}},
};

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

// The command without the refused flags and their values.
std::string without(const std::string& arguments, const std::vector<std::string>& refused) {
  std::string kept;
  bool dropping = false;
  for (const std::string& word : words(arguments)) {
    if (word.rfind("--", 0) == 0) {
      std::string name = word.substr(2);
      std::replace(name.begin(), name.end(), '-', '_');
      dropping = std::find(refused.begin(), refused.end(), name) != refused.end();
    }
    if (!dropping) kept += word + " ";
  }
  return kept;
}

std::string with_data(std::string arguments, const std::filesystem::path& data) {
  arguments.replace(arguments.find("DATA"), 4, data.string());
  return arguments;
}

}  // namespace

TEST_CASE("timm's documented train.py commands: refused options all at once, then they train", "[cli][timm]") {
  TempDir dir("timm-docs");
  write_two_class_images(dir / "imagenet");
  std::filesystem::rename(dir / "imagenet" / "val", dir / "imagenet" / "validation");
  // Small enough for a test: one epoch of a few images, on the training thread.
  const std::string small = " --epochs 1 -b 8 --img-size 32 -j 0 --output " + (dir / "runs").string();
  for (size_t i = 0; i < kCommands.size(); ++i) {
    const DocumentedCommand& command = kCommands[i];
    const std::string arguments = with_data(command.arguments, dir / "imagenet");
    INFO(arguments);
    if (!command.refused.empty()) {
      const CommandResult typed = run_trainer("train " + arguments + small);
      INFO(typed.output);
      CHECK(typed.exit_code == 2);
      if (command.refused.size() > 1)
        CHECK_THAT(typed.output, Catch::Contains(std::to_string(command.refused.size()) + " problems"));
      for (const std::string& flag : command.refused) CHECK_THAT(typed.output, Catch::Contains("'" + flag));
    }
    const CommandResult trained =
        run_trainer("train " + without(arguments, command.refused) + small + " --experiment doc" + std::to_string(i));
    INFO(trained.output);
    CHECK(trained.exit_code == 0);
    CHECK_THAT(trained.output, Catch::Contains("top1"));
    const auto run = dir / "runs" / ("doc" + std::to_string(i));
    CHECK(std::filesystem::exists(run / "weights" / "best.pt"));
    const std::string args = read_text(run / "args.yaml");
    INFO(args);
    for (const std::string& line : command.effects) CHECK_THAT(args, Catch::Contains("\n" + line + "\n"));
  }
}

TEST_CASE("timm's spellings are said in an info line, --key value works for every key", "[cli][timm]") {
  const CommandResult flags = run_trainer(
      "keys --batch-size 32 --grad-accum-steps=4 --hflip 0.25 -j 3 --imgH 48 "
      "--model-ema --warmup-epochs=2 --crop-pct 0.9 --lr -0.5");
  INFO(flags.output);
  CHECK(flags.exit_code == 2);  // lr0 > 0: the negative number was read as --lr's value
  CHECK_THAT(flags.output, Catch::Contains("lr0"));
  const CommandResult keys = run_trainer(
      "keys --batch-size 32 --grad-accum-steps=4 --hflip 0.25 -j 3 --imgH 48 "
      "--model-ema --warmup-epochs=2 --crop-pct 0.9");
  INFO(keys.output);
  CHECK(keys.exit_code == 0);
  CHECK_THAT(keys.output, Catch::Contains("batch: 32\n") && Catch::Contains("accumulate: 4\n") &&
                              Catch::Contains("fliplr: 0.25\n") && Catch::Contains("workers: 3\n") &&
                              Catch::Contains("imgH: 48\n") && Catch::Contains("ema: true\n") &&
                              Catch::Contains("warmup_epochs: 2\n") && Catch::Contains("crop_fraction: 0.9\n"));
  CHECK_THAT(keys.output, Catch::Contains("timm's batch_size is batch here") &&
                              Catch::Contains("timm's crop_pct is crop_fraction here"));
}

TEST_CASE("timm's flags at values that ask for nothing are ignored, --native-amp is --amp", "[cli][timm]") {
  const CommandResult quiet = run_trainer(
      "keys --model resnet18 --drop-path 0 --cooldown-epochs 0 --log-interval 50 --pin-mem --apex-amp false "
      "--native-amp");
  INFO(quiet.output);
  CHECK(quiet.exit_code == 0);
  CHECK_THAT(quiet.output, Catch::Contains("amp: auto\n") && Catch::Contains("drop_path") &&
                               Catch::Contains("log_interval") && Catch::Contains("pin_mem"));
  // At values that ask for something, each is refused with its reason, all in one run.
  const CommandResult asked = run_trainer("keys --model resnet18 --aug-splits 3 --warmup-prefix --apex-amp");
  INFO(asked.output);
  CHECK(asked.exit_code == 2);
  CHECK_THAT(asked.output, Catch::Contains("3 problems") && Catch::Contains("augmentation splits") &&
                               Catch::Contains("warmup included") && Catch::Contains("Apex"));
  CHECK_THAT(run_trainer("keys --sync-bn").output, Catch::Contains("norm=syncbn"));
}

TEST_CASE("timm's tagged ResNet names, resnet101/152, --drop, --drop-path and --opt rmsproptf plan and train",
          "[cli][timm]") {
  TempDir dir("timm-models");
  write_two_class_images(dir / "data");
  const std::string data = " --data-dir " + (dir / "data").string();
  // torchvision's counts at 2 classes: fc is 2048 x 2 + 2 instead of 2048 x 1000 + 1000.
  const CommandResult deep = run_trainer("plan" + data + " --model resnet101.tv2_in1k --drop-path 0.05");
  INFO(deep.output);
  REQUIRE(deep.exit_code == 0);
  CHECK_THAT(deep.output, Catch::Contains("parameters             42504258 (42504258 trainable)"));
  const CommandResult deepest = run_trainer("plan" + data + " --model resnet152");
  INFO(deepest.output);
  REQUIRE(deepest.exit_code == 0);
  CHECK_THAT(deepest.output, Catch::Contains("parameters             58147906 (58147906 trainable)"));

  const CommandResult trained =
      run_trainer("train" + data + " --model resnet18.tv_in1k --drop 0.2 --drop-path 0.1 --opt rmsproptf "
                  "--opt-eps .001 --momentum 0.9 --lr 0.01 --epochs 1 -b 8 --img-size 32 -j 0 --output " +
                  (dir / "runs").string() + " --experiment tagged");
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  const std::string args = read_text(dir / "runs" / "tagged" / "args.yaml");
  INFO(args);
  for (const std::string line : {"model: resnet18.tv_in1k", "optimizer: rmsproptf", "eps: 0.001", "momentum: 0.9",
                                 "dropout: 0.2", "drop_path: 0.1"}) {
    CHECK_THAT(args, Catch::Contains("\n" + line + "\n"));
  }

  // An architecture we do not have, tagged or not, is named with the families there are.
  const CommandResult unknown = run_trainer("plan" + data + " --model resnet26d.a1_in1k");
  INFO(unknown.output);
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.output, Catch::Contains("resnet26d.a1_in1k") && Catch::Contains("resnet101, resnet152"));
  const CommandResult foreign = run_trainer("plan" + data + " --model vit_base_patch16_224.augreg_in21k");
  INFO(foreign.output);
  CHECK(foreign.exit_code == 2);
  CHECK_THAT(foreign.output, Catch::Contains("vit_base_patch16_224.augreg_in21k") &&
                                 Catch::Contains("resnet18/34/50/101/152"));
}
