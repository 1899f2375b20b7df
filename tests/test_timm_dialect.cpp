// The dialect of a command: timm's train.py flags get train.py's defaults for every key they do not
// set, Ultralytics' key=value keeps ours; timm's positional data folder and bare --pretrained; its
// step, multistep and cosine schedules per epoch or per update, against a Python reference written
// from timm's schedulers (scripts/python/timm_schedule_fixture.py).
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "config/command_arguments.h"
#include "engine/training_plan.h"
#include "families/recipes.h"
#include "optim/schedule.h"
#include "test_helpers.h"

using namespace trainer;
using namespace trainer::testing;

namespace {

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

// The rate of every update of a run of `per_epoch` updates an epoch, with the command's flags.
std::vector<double> rates_of(const std::string& flags, int64_t per_epoch) {
  const CommandOverrides read = read_command_arguments(words(flags + " -b 1 --device cpu"));
  REQUIRE(read.dialect == Dialect::timm);
  const Settings settings = load_settings(std::nullopt, read.overrides, read.dialect);
  const TrainingPlan plan = make_plan(settings, per_epoch, per_epoch, 2);
  const ScheduleOptions options = schedule_options(settings.schedule, settings.optim, plan);
  std::vector<double> rates;
  for (int64_t update = 0; update < plan.total_updates; ++update)
    rates.push_back(schedule_at(options, update).lr);
  return rates;
}

std::map<std::string, std::vector<double>> reference_rates(const TempDir& dir) {
  run_python("timm_schedule_fixture.py", quoted(dir.file("rates.txt")));
  std::ifstream in(dir / "rates.txt");
  std::map<std::string, std::vector<double>> cases;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string name;
    fields >> name;
    for (double rate = 0; fields >> rate;) cases[name].push_back(rate);
  }
  return cases;
}

}  // namespace

TEST_CASE("timm's schedules give timm's rates per epoch and per update", "[timm][schedule]") {
  TempDir dir("timm-schedule");
  const auto reference = reference_rates(dir);
  // As the fixture's CASES: lr, epochs, updates per epoch, warmup, decay.
  const std::vector<std::tuple<std::string, std::string, int64_t>> cases = {
      {"step",
       "--sched step --lr 0.016 --epochs 10 --warmup-epochs 3 --warmup-lr 1e-6 --decay-epochs 2.4 "
       "--dr 0.97",
       5},
      {"multistep",
       "--sched multistep --lr 0.1 --epochs 9 --warmup-epochs 2 --decay-milestones 3 6 "
       "--decay-rate 0.1",
       4},
      {"cosine",
       "--sched cosine --lr 0.05 --epochs 8 --warmup-epochs 2 --min-lr 1e-4 --cooldown-epochs 2",
       3},
      {"step_updates",
       "--sched step --lr 0.2 --epochs 6 --warmup-epochs 1 --warmup-lr 1e-4 --decay-epochs 2 "
       "--decay-rate 0.5 "
       "--sched-on-updates",
       3},
      {"cosine_updates",
       "--lr 0.1 --epochs 5 --warmup-epochs 1 --cooldown-epochs 1 --sched-on-updates", 4},
  };
  for (const auto& [name, flags, per_epoch] : cases) {
    INFO(name << ": " << flags);
    const std::vector<double> ours = rates_of(flags, per_epoch);
    const std::vector<double>& theirs = reference.at(name);
    REQUIRE(ours.size() == theirs.size());
    for (size_t update = 0; update < ours.size(); ++update) {
      INFO("update " << update);
      CHECK(ours[update] == Approx(theirs[update]).epsilon(1e-12).margin(1e-15));
    }
  }
  // The Ultralytics form keeps its schedule: per update, from 0, to lr0 x lrf.
  const Settings ours =
      load_settings(std::nullopt, {"scheduler=cosine", "lr0=0.01", "device=cpu", "optimizer=sgd"});
  const ScheduleOptions options =
      schedule_options(ours.schedule, ours.optim, make_plan(ours, 100, 10, 2));
  CHECK(options.step_updates == 1);
  CHECK_FALSE(options.warmup_lr.has_value());
  CHECK(options.lrf == Approx(0.01));
}

TEST_CASE("a timm command gets train.py's defaults, an Ultralytics one ours", "[cli][timm]") {
  TempDir dir("timm-dialect");
  write_two_class_images(dir / "data");
  // As a script writes it: variables expanded, lines continued, the GPU list in front.
  const CommandResult timm = run_command(
      "DATA=" + dir.file("data") + "; MODEL=resnet18\nCUDA_VISIBLE_DEVICES= " + TRAINER_BINARY +
      " plan \\\n    --model $MODEL \\\n    -b 32 \\\n    $DATA");
  INFO(timm.output);
  REQUIRE(timm.exit_code == 0);
  CHECK_THAT(timm.output, Catch::Contains("timm's dialect"));
  for (const char* line :
       {"optimizer: sgd", "lr0: 0.1", "lr_scale: linear", "lr_base_batch: 256", "accumulate: 1",
        "scheduler: cosine", "sched_on_updates: false", "epochs: 300", "warmup_epochs: 5",
        "warmup_lr: 1e-05", "min_lr: 0", "label_smoothing: 0.1", "momentum: 0.9",
        "weight_decay: 2e-05", "scale_weight_decay: false", "ema: false", "batch: 32", "seed: 42",
        "amp: off"}) {
    CHECK_THAT(timm.output, Catch::Contains(std::string("\n") + line + "\n"));
  }
  CHECK_THAT(timm.output, Catch::Contains("data: " + dir.file("data")));
  CHECK_THAT(timm.output, Catch::Matches("[\\s\\S]*lr \\(after scaling\\) +0\\.0125\n[\\s\\S]*"));
  CHECK_THAT(timm.output, Catch::Matches("[\\s\\S]*weight decay \\(scaled\\) +2e-05\n[\\s\\S]*"));
  CHECK_THAT(timm.output, Catch::Contains("cosine, stepped at epoch ends, warmup from 1e-05"));
  // --lr is the rate itself; the Adam family scales --lr-base by the square root, as train.py.
  const CommandResult given =
      run_trainer("plan --model resnet18 -b 32 --lr 0.3 " + dir.file("data"));
  CHECK_THAT(given.output,
             Catch::Contains("\nlr_scale: none\n") && Catch::Contains("\nlr0: 0.3\n"));
  const CommandResult adam =
      run_trainer("plan --opt adamw -b 64 --lr-base 0.001 " + dir.file("data"));
  CHECK_THAT(adam.output, Catch::Contains("\nlr_scale: sqrt\n"));
  CHECK_THAT(adam.output, Catch::Matches("[\\s\\S]*lr \\(after scaling\\) +0\\.0005\n[\\s\\S]*"));

  // One key=value makes it Ultralytics': today's defaults, said so.
  const CommandResult ultralytics =
      run_trainer("plan model=resnet18 batch=32 data=" + dir.file("data"));
  INFO(ultralytics.output);
  REQUIRE(ultralytics.exit_code == 0);
  CHECK_THAT(ultralytics.output, Catch::Contains("Ultralytics' dialect"));
  CHECK_THAT(ultralytics.output,
             Catch::Contains("\noptimizer: auto\n") && Catch::Contains("\nepochs: 10\n") &&
                 Catch::Contains("\nwarmup_lr: none\n") && Catch::Contains("\nlr_scale: none\n"));
  const CommandResult mixed =
      run_trainer("plan --model resnet18 -b 32 epochs=2 " + dir.file("data"));
  CHECK_THAT(mixed.output,
             Catch::Contains("Ultralytics' dialect") && Catch::Contains("\noptimizer: auto\n"));
}

TEST_CASE("timm's bare --pretrained reads the local hub cache, or says where to put the file",
          "[cli][timm]") {
  TempDir dir("timm-pretrained");
  write_two_class_images(dir / "data");
  const std::string env = "HF_HOME=" + dir.file("hf") + " TORCH_HOME=" + dir.file("torch") + " ";
  const std::string command =
      env + TRAINER_BINARY + " keys --model resnet18 --pretrained " + dir.file("data");
  const CommandResult missing = run_command(command);
  INFO(missing.output);
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output,
             Catch::Contains(dir.file("hf") + "/hub/models--timm--resnet18") &&
                 Catch::Contains(dir.file("torch") + "/hub/checkpoints/resnet18-*.pth") &&
                 Catch::Contains("--pretrained PATH"));
  // A file where huggingface_hub puts timm's resnet18.a1_in1k; `keys` resolves the path only.
  const auto snapshot =
      dir / "hf" / "hub" / "models--timm--resnet18.a1_in1k" / "snapshots" / "0123abc";
  std::filesystem::create_directories(snapshot);
  std::ofstream(snapshot / "model.safetensors") << "read when the model is built, not here";
  const CommandResult found = run_command(command);
  INFO(found.output);
  CHECK(found.exit_code == 0);
  CHECK_THAT(found.output,
             Catch::Contains("\npretrained: " + (snapshot / "model.safetensors").string() + "\n"));
}

TEST_CASE("timm's --mixup is MixUp's alpha, --sync-bn norm=syncbn, --input-size imgsz",
          "[cli][timm]") {
  const CommandResult timm =
      run_trainer("keys --model resnet18 --mixup 0.8 --cutmix 1.0 --mixup-mode batch --sync-bn");
  INFO(timm.output);
  REQUIRE(timm.exit_code == 0);
  CHECK_THAT(timm.output,
             Catch::Contains("\nmixup_alpha: 0.8\n") && Catch::Contains("\ncutmix_alpha: 1\n") &&
                 Catch::Contains("\nmixup: 0\n") && Catch::Contains("\nnorm: syncbn\n"));
  // In a key=value command, Ultralytics' mixup is detection's probability, as before.
  const CommandResult ultralytics = run_trainer("keys model=yolov8n.yaml mixup=0.1");
  CHECK_THAT(ultralytics.output,
             Catch::Contains("\nmixup: 0.1\n") && Catch::Contains("\nmixup_alpha: 0\n"));
  const CommandResult pair = run_trainer("keys --mixup 0.8 --mixup-mode pair");
  CHECK(pair.exit_code == 2);
  CHECK_THAT(pair.output, Catch::Contains("pair and elem are not offered"));
  // --input-size C H W is imgsz when square, refused otherwise.
  CHECK_THAT(run_trainer("keys --model resnet18 --input-size 3 160 160").output,
             Catch::Contains("\nimgsz: 160\n"));
  const CommandResult wide = run_trainer("keys --model resnet18 --input-size 3 160 224");
  CHECK(wide.exit_code == 2);
  CHECK_THAT(wide.output, Catch::Contains("input_size") && Catch::Contains("H = W"));
}

TEST_CASE("a timm command trains resnet50 unless --model says otherwise, RMSpropTF at timm's eps 1e-10",
          "[cli][timm]") {
  TempDir dir("timm-model-eps");
  write_two_class_images(dir / "data");
  const CommandResult timm = run_trainer("plan -b 32 --opt rmsproptf " + dir.file("data"));
  INFO(timm.output);
  REQUIRE(timm.exit_code == 0);
  CHECK_THAT(timm.output, Catch::Contains("\nmodel: resnet50\n") && Catch::Contains("\noptimizer: rmsproptf\n") &&
                              Catch::Contains("\neps: 1e-10\n"));
  // --opt-eps is taken as given; other optimizers keep the table's eps, as timm's keep theirs.
  CHECK_THAT(run_trainer("plan --opt rmsproptf --opt-eps .001 " + dir.file("data")).output,
             Catch::Contains("\neps: 0.001\n"));
  CHECK_THAT(run_trainer("plan --opt adamw " + dir.file("data")).output, Catch::Contains("\neps: 1e-08\n"));
  // Ultralytics' form keeps resnet18 and eps 1e-8 for the same optimizer.
  const CommandResult ultralytics = run_trainer("plan optimizer=rmsproptf data=" + dir.file("data"));
  INFO(ultralytics.output);
  REQUIRE(ultralytics.exit_code == 0);
  CHECK_THAT(ultralytics.output, Catch::Contains("\nmodel: resnet18\n") && Catch::Contains("\neps: 1e-08\n"));
}

TEST_CASE("timm's --pretrained takes the tag named, or timm's default tag of the architecture", "[cli][timm]") {
  TempDir dir("timm-tags");
  write_two_class_images(dir / "data");
  const auto hub = dir / "hub";
  // Two released tags of each architecture: resnet101's default (a1h_in1k) sorts after a1_in1k.
  std::map<std::string, std::string> files;
  for (const char* repository : {"resnet50.a1_in1k", "resnet50.a2_in1k", "resnet101.a1_in1k", "resnet101.a1h_in1k"}) {
    const auto snapshot = hub / (std::string("models--timm--") + repository) / "snapshots" / "f00d";
    std::filesystem::create_directories(snapshot);
    std::ofstream(snapshot / "model.safetensors") << repository;
    files[repository] = (snapshot / "model.safetensors").string();
  }
  const auto pretrained = [&](const std::string& model) {
    const CommandResult keys = run_command("HF_HUB_CACHE=" + hub.string() + " TORCH_HOME=" + dir.file("torch") + " " +
                                           TRAINER_BINARY + " keys --model " + model + " --pretrained " +
                                           dir.file("data"));
    INFO(keys.output);
    CHECK(keys.exit_code == 0);
    return keys.output;
  };
  CHECK_THAT(pretrained("resnet50.a2_in1k"), Catch::Contains("\npretrained: " + files["resnet50.a2_in1k"] + "\n"));
  CHECK_THAT(pretrained("resnet50"), Catch::Contains("\npretrained: " + files["resnet50.a1_in1k"] + "\n"));
  CHECK_THAT(pretrained("resnet101"), Catch::Contains("\npretrained: " + files["resnet101.a1h_in1k"] + "\n"));
  CHECK_THAT(pretrained("resnet101.a1_in1k"), Catch::Contains("\npretrained: " + files["resnet101.a1_in1k"] + "\n"));
  // Without the default tag cached, another tag is not taken for it: the error names the default's place.
  std::filesystem::remove_all(hub / "models--timm--resnet50.a1_in1k");
  const CommandResult missing = run_command("HF_HUB_CACHE=" + hub.string() + " TORCH_HOME=" + dir.file("torch") +
                                            " " + TRAINER_BINARY + " keys --model resnet50 --pretrained " +
                                            dir.file("data"));
  INFO(missing.output);
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Catch::Contains("models--timm--resnet50.a1_in1k"));
}

TEST_CASE("timm's --val-interval counts epochs: 1 is every epoch end, other values are refused", "[timm]") {
  const CapturedLog log;
  const auto load = [](const std::string& flags) {
    const CommandOverrides read = read_command_arguments(words(flags));
    REQUIRE(read.dialect == Dialect::timm);
    return load_settings(std::nullopt, read.overrides, read.dialect);
  };
  CHECK(load("--model resnet18 --val-interval 1").output.val_interval == 0);
  CHECK_THROWS_WITH(load("--model resnet18 --val-interval 3"),
                    Catch::Contains("--val-interval 3") && Catch::Contains("counts epochs"));
  // In key=value form it counts updates, as before.
  CHECK(load_settings(std::nullopt, {"val_interval=3"}).output.val_interval == 3);
}
