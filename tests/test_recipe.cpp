// Recipes and overrides are parsed once into Settings; every mistake names its key and source.
#include <catch2/catch.hpp>

#include "config/recipe_keys.h"
#include "families/recipes.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;
using trainer::testing::CapturedLog;
using trainer::testing::TempDir;
using trainer::testing::write_text;

namespace {

std::string error_of(const std::optional<std::string>& file, const std::vector<std::string>& overrides) {
  try {
    load_settings(file, overrides);
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("defaults load without a file", "[config]") {
  const Settings settings = load_settings(std::nullopt, {});
  CHECK(settings.run.task == TaskKind::classify);
  CHECK(settings.run.model == "resnet18");
  CHECK_FALSE(settings.schedule.accumulate.has_value());
}

TEST_CASE("a recipe file sets keys and overrides win", "[config]") {
  TempDir dir("recipe");
  write_text(dir / "r.yaml", "model: resnet34\nbatch: 8\naccumulate: 4\nlr0: 0.002\namp: bf16\n");
  const Settings settings = load_settings((dir / "r.yaml").string(), {"batch=16", "accumulate=auto"});
  CHECK(settings.run.model == "resnet34");
  CHECK(settings.schedule.batch == 16);
  CHECK_FALSE(settings.schedule.accumulate.has_value());
  CHECK(settings.optim.lr0 == Approx(0.002));
  CHECK(settings.execution.amp == AmpMode::bf16);
}

TEST_CASE("overrides follow Ultralytics' spelling rules", "[config]") {
  SECTION("true/false/none in any case, bare bool keys mean true") {
    const Settings settings = load_settings(std::nullopt, {"ema=FALSE", "exist_ok", "pretrained=None", "val=True"});
    CHECK_FALSE(settings.optim.ema);
    CHECK(settings.output.exist_ok);
    CHECK(settings.run.pretrained.empty());
    CHECK(settings.output.val);
  }
  SECTION("spaces around = arrive as separate arguments") {
    CHECK(normalize_overrides({"batch", "=", "8", "epochs=", "3", "lr0", "=0.1"}) ==
          std::vector<std::string>{"batch=8", "epochs=3", "lr0=0.1"});
    const Settings settings = load_settings(std::nullopt, {"batch", "=", "8"});
    CHECK(settings.schedule.batch == 8);
  }
  SECTION("amp and compile take booleans too") {
    CHECK(load_settings(std::nullopt, {"amp=false"}).execution.amp == AmpMode::off);
    CHECK(load_settings(std::nullopt, {"amp"}).execution.amp == AmpMode::automatic);
    CHECK(load_settings(std::nullopt, {"compile"}).execution.compile == CompileMode::standard);
    CHECK(load_settings(std::nullopt, {"compile=reduce-overhead"}).execution.compile == CompileMode::reduce_overhead);
  }
  SECTION("lr_scale takes a rule or a factor") {
    const Settings settings = load_settings(std::nullopt, {"lr_scale=1.4"});
    CHECK(settings.schedule.lr_scale == LrScaleRule::factor);
    CHECK(settings.schedule.lr_scale_factor == Approx(1.4));
    CHECK(load_settings(std::nullopt, {"lr_scale=sqrt"}).schedule.lr_scale == LrScaleRule::sqrt);
  }
}

TEST_CASE("unknown keys are rejected with a suggestion", "[config]") {
  CHECK_THAT(error_of(std::nullopt, {"epoch=3"}),
             Catch::Contains("unknown key 'epoch'") && Catch::Contains("did you mean 'epochs'"));
  TempDir dir("unknown");
  write_text(dir / "r.yaml", "batch: 8\nacumulate: 2\n");
  CHECK_THAT(error_of((dir / "r.yaml").string(), {}),
             Catch::Contains("r.yaml:2:1") && Catch::Contains("did you mean 'accumulate'"));
}

TEST_CASE("keys of Ultralytics and timm that differ here say what they are", "[config]") {
  CHECK_THAT(error_of(std::nullopt, {"rect=True"}),
             Catch::Contains("rect=True (Ultralytics) asks for what is not done here") &&
                 Catch::Contains("rectangular batches"));
  CHECK_THAT(error_of(std::nullopt, {"lr_noise=0.4"}), Catch::Contains("learning-rate noise is not offered"));
  TempDir dir("foreign");
  write_text(dir / "r.yaml", "epochs: 3\ncolor_jitter: 0.4\n");
  CHECK_THAT(error_of((dir / "r.yaml").string(), {}),
             Catch::Contains("r.yaml:2:1") && Catch::Contains("hsv_v=X hsv_s=X hsv_h=0"));
}

TEST_CASE("timm's spellings of our keys are taken with an info line", "[config]") {
  // By spelling alone, timm's --sched would be taken for seed.
  CapturedLog log;
  TempDir dir("timm");
  write_text(dir / "r.yaml", "clip_grad: 1.0\n");
  const Settings settings =
      load_settings((dir / "r.yaml").string(), {"sched=cosine", "smoothing=0.1", "batch_size=32"});
  CHECK(settings.schedule.scheduler == SchedulerKind::cosine);
  CHECK(settings.data.label_smoothing == Approx(0.1));
  CHECK(settings.schedule.batch == 32);
  CHECK(settings.optim.grad_clip == Approx(1.0));
  CHECK_THAT(log.text(), Catch::Contains("timm's sched is scheduler here") &&
                             Catch::Contains("r.yaml:1:1: timm's clip_grad is grad_clip here"));
}

TEST_CASE("did-you-mean offers only a near key of the same meaning", "[config]") {
  CHECK_THAT(error_of(std::nullopt, {"acumulate=2"}), Catch::Contains("did you mean 'accumulate'"));
  CHECK_THAT(error_of(std::nullopt, {"bach=2"}), Catch::Contains("did you mean 'batch'"));
  // Ultralytics' keys near ours by spelling: their own mapping, or nothing; never the near key.
  const std::string mode = error_of(std::nullopt, {"mode=val"});
  CHECK_THAT(mode, Catch::Contains("the mode is the command") && !Catch::Contains("'model'"));
  // Export's optimize is ignored by training, as Ultralytics ignores it; it sets no optimizer.
  CHECK(load_settings(std::nullopt, {"optimize=true"}).optim.kind == OptimizerKind::automatic);
  for (const char* near : {"cfg=x.yaml", "cls_pw=1"}) {
    INFO(near);
    CHECK_THAT(error_of(std::nullopt, {near}), Catch::Contains("(Ultralytics)") && !Catch::Contains("did you mean"));
  }
}

TEST_CASE("every problem of the command line is reported in one run", "[config]") {
  const std::string error = error_of(std::nullopt, {"epoch=3", "lr0=fast", "batch=8", "jsd"});
  CHECK_THAT(error, Catch::Contains("3 problems") && Catch::Contains("'epoch'") && Catch::Contains("lr0") &&
                        Catch::Contains("Jensen-Shannon"));
}

TEST_CASE("Ultralytics' optimizer names are accepted or refused with the nearest choice", "[config]") {
  for (const auto& [name, kind] :
       std::vector<std::pair<std::string, OptimizerKind>>{{"SGD", OptimizerKind::sgd},
                                                          {"Adam", OptimizerKind::adam},
                                                          {"AdamW", OptimizerKind::adamw},
                                                          {"auto", OptimizerKind::automatic},
                                                          {"adadelta", OptimizerKind::adadelta}}) {
    INFO(name);
    CHECK(load_settings(std::nullopt, {"optimizer=" + name}).optim.kind == kind);
  }
  for (const std::string name : {"Adamax", "NAdam", "RAdam", "RMSProp"}) {
    INFO(name);
    CHECK_THAT(error_of(std::nullopt, {"optimizer=" + name}),
               Catch::Contains("'optimizer'") && Catch::Contains("has no fused update here") && Catch::Contains(name));
  }
  // EasyOCR's Adadelta hyper-parameters and its spelling of Adam's beta1.
  const Settings easyocr = load_settings(std::nullopt, {"optimizer=adadelta", "rho=0.9", "eps=1e-6", "beta1=0.5"});
  CHECK(easyocr.optim.rho == 0.9);
  CHECK(easyocr.optim.eps == 1e-6);
  CHECK(easyocr.optim.momentum == 0.5);
  CHECK_THAT(error_of(std::nullopt, {"rho=1"}), Catch::Contains("'rho'"));
}

TEST_CASE("a model names its task and a task its model, as in Ultralytics", "[config]") {
  SECTION("the model alone decides the task") {
    CHECK(load_settings(std::nullopt, {"model=yolov8s.yaml"}).run.task == TaskKind::detect);
    CHECK(load_settings(std::nullopt, {"model=crnn"}).run.task == TaskKind::ocr);
    CHECK(load_settings(std::nullopt, {"model=resnet50"}).run.task == TaskKind::classify);
  }
  SECTION("the task alone picks its usual model") {
    CHECK(load_settings(std::nullopt, {"task=detect"}).run.model == "yolov8n");
    CHECK(load_settings(std::nullopt, {"task=ocr"}).run.model == "crnn");
    CHECK(load_settings(std::nullopt, {}).run.model == "resnet18");
  }
  SECTION("with neither, an Ultralytics data.yaml means detection") {
    const Settings settings = load_settings(std::nullopt, {"data=sets/coco8.yaml"});
    CHECK(settings.run.task == TaskKind::detect);
    CHECK(settings.run.model == "yolov8n");
    CHECK(load_settings(std::nullopt, {"data=sets/photos"}).run.task == TaskKind::classify);
  }
  SECTION("model=<architecture>.pt starts that architecture from the file, .yaml from scratch") {
    const Settings weights = load_settings(std::nullopt, {"model=weights/yolov8m.pt"});
    CHECK(weights.run.model == "yolov8m");
    CHECK(weights.run.pretrained == "weights/yolov8m.pt");
    CHECK(weights.run.task == TaskKind::detect);
    const Settings scratch = load_settings(std::nullopt, {"model=yolov8n.yaml"});
    CHECK(scratch.run.model == "yolov8n");
    CHECK(scratch.run.pretrained.empty());
    // The resolved recipe names the architecture and the file apart, and loads back the same.
    TempDir dir("model-file");
    write_text(dir / "args.yaml", to_yaml(weights));
    CHECK(to_yaml(load_settings((dir / "args.yaml").string(), {})) == to_yaml(weights));
  }
  SECTION("disagreements and unknown names are errors naming both places") {
    TempDir dir("task-model");
    write_text(dir / "r.yaml", "task: classify\nbatch: 8\n");
    CHECK_THAT(error_of((dir / "r.yaml").string(), {"model=yolov8n.yaml"}),
               Catch::Contains("override 'model=yolov8n.yaml'") &&
                   Catch::Contains("trains task=detect") && Catch::Contains("r.yaml:1:7"));
    CHECK(load_settings((dir / "r.yaml").string(), {"model=resnet34"}).run.model == "resnet34");
    CHECK_THAT(error_of(std::nullopt, {"model=vgg16"}),
               Catch::Contains("unknown model 'vgg16'") && Catch::Contains("yolov8n/s/m/l/x (task=detect)"));
    // The unknown model is reported with every other problem of the command, in one run.
    const std::string all = error_of(std::nullopt, {"model=vgg16", "batch=eight", "acumulate=2"});
    CHECK_THAT(all, Catch::StartsWith("3 problems in the recipe:") && Catch::Contains("unknown model 'vgg16'") &&
                        Catch::Contains("key 'batch'") && Catch::Contains("unknown key 'acumulate'"));
    CHECK_THAT(error_of(std::nullopt, {"model=best.pt"}),
               Catch::Contains("names no architecture") && Catch::Contains("pretrained="));
    CHECK_THAT(error_of(std::nullopt, {"model=yolov8n.pt", "pretrained=other.pt"}),
               Catch::Contains("override 'pretrained=other.pt'") && Catch::Contains("keep one"));
  }
}

TEST_CASE("wrong types and ranges name the key, the value and the place", "[config]") {
  TempDir dir("types");
  write_text(dir / "r.yaml", "epochs: 3\nbatch: eight\n");
  CHECK_THAT(error_of((dir / "r.yaml").string(), {}),
             Catch::Contains("r.yaml:2:8") && Catch::Contains("'batch'") && Catch::Contains("'eight'"));
  CHECK_THAT(error_of(std::nullopt, {"batch=0"}),
             Catch::Contains("override 'batch=0'") && Catch::Contains("[1, inf]"));
  CHECK_THAT(error_of(std::nullopt, {"fliplr=1.5"}), Catch::Contains("'fliplr'"));
  CHECK_THAT(error_of(std::nullopt, {"momentum=1"}), Catch::Contains("'momentum'"));
  CHECK_THAT(error_of(std::nullopt, {"ema=yes"}), Catch::Contains("true or false"));
  CHECK_THAT(error_of(std::nullopt, {"optimizer=lion"}), Catch::Contains("sgd, adamw, adam, adadelta"));
  CHECK_THAT(error_of(std::nullopt, {"device=gpu"}), Catch::Contains("cuda:N"));
  CHECK(load_settings(std::nullopt, {"device=1"}).run.device == "cuda:1");  // Ultralytics' GPU index
  CHECK_THAT(error_of(std::nullopt, {"device=0,gpu"}), Catch::Contains("list of GPU indices"));
  CHECK_THAT(error_of(std::nullopt, {"accumulate=0"}), Catch::Contains("'accumulate'"));
  CHECK_THAT(error_of(std::nullopt, {"fraction=0"}),
             Catch::Contains("override 'fraction=0'") && Catch::Contains("(0, 1]"));
  CHECK_THAT(error_of(std::nullopt, {"crop_fraction=0"}), Catch::Contains("'crop_fraction'") && Catch::Contains("(0, 1]"));
  CHECK_THAT(error_of(std::nullopt, {"erasing=1.5"}), Catch::Contains("'erasing'") && Catch::Contains("[0, 1]"));
  CHECK_THAT(error_of(std::nullopt, {"auto_augment=augmix"}),
             Catch::Contains("'auto_augment'") && Catch::Contains("randaugment, autoaugment, trivialaugment"));
  CHECK_THAT(error_of(std::nullopt, {"randaugment_magnitude=31"}), Catch::Contains("'randaugment_magnitude'"));
  CHECK_THAT(error_of(std::nullopt, {"cache=npy"}),
             Catch::Contains("'cache'") && Catch::Contains("false, ram, disk or true"));
  CHECK_THAT(error_of(std::nullopt, {"cache_quality=0"}), Catch::Contains("'cache_quality'"));
  CHECK_THAT(error_of(std::nullopt, {"save_period=-2"}), Catch::Contains("'save_period'"));
  CHECK_THAT(error_of(std::nullopt, {"lr_scale=fast"}), Catch::Contains("'lr_scale'"));
  CHECK_THAT(error_of(std::nullopt, {"batch"}), Catch::Contains("needs a value"));
  CHECK_THAT(error_of(std::nullopt, {"lr0=nan"}), Catch::Contains("'lr0'"));
}

TEST_CASE("malformed or missing recipe files are clear errors", "[config]") {
  TempDir dir("malformed");
  CHECK_THAT(error_of((dir / "missing.yaml").string(), {}), Catch::Contains("not found"));
  write_text(dir / "list.yaml", "- a\n- b\n");
  CHECK_THAT(error_of((dir / "list.yaml").string(), {}), Catch::Contains("mapping"));
  write_text(dir / "bad.yaml", "batch: [1, 2\n");
  CHECK_THAT(error_of((dir / "bad.yaml").string(), {}), Catch::Contains("invalid YAML"));
  write_text(dir / "nested.yaml", "batch:\n  a: 1\n");
  CHECK_THAT(error_of((dir / "nested.yaml").string(), {}), Catch::Contains("single value"));
  // A fuzz finding (tests/fuzz/corpus/recipe/crash-sequence-as-key): a list as a key escaped as
  // yaml-cpp's conversion error.
  write_text(dir / "list_key.yaml", "{[a, b]: 1, epochs: 2}\n");
  CHECK_THAT(error_of((dir / "list_key.yaml").string(), {}),
             Catch::Contains("list_key.yaml:1:2") && Catch::Contains("a key is a single word"));
}

TEST_CASE("the resolved recipe loads back to the same settings", "[config]") {
  TempDir dir("roundtrip");
  const Settings original = load_settings(std::nullopt, {"batch=8", "accumulate=4", "lr_scale=1.3",
                                                          "amp=bf16", "warmup_updates=7", "lr0=0.00123"});
  write_text(dir / "args.yaml", to_yaml(original));
  const Settings reloaded = load_settings((dir / "args.yaml").string(), {});
  CHECK(to_yaml(reloaded) == to_yaml(original));
  CHECK(reloaded.schedule.warmup_updates == 7);
  CHECK(reloaded.schedule.accumulate == 4);
}

TEST_CASE("every recipe key is documented in docs/recipe-keys.md", "[config]") {
  const std::string docs = trainer::testing::read_text(std::string(TRAINER_SOURCE_DIR) + "/docs/recipe-keys.md");
  REQUIRE_FALSE(docs.empty());
  for (const auto& name : recipe_key_names()) {
    INFO(name);
    CHECK(docs.find("`" + name + "`") != std::string::npos);
  }
}

TEST_CASE("list keys take YAML sequences or comma-separated overrides and round-trip", "[config]") {
  TempDir dir("lists");
  write_text(dir / "ocr.yaml",
             "task: ocr\nselect_data: [digits, printed]\nbatch_ratio:\n  - 0.7\n  - 0.3\nbuckets: [96, 192, 288]\n"
             "imgW: 288\ncharset: \"0123456789,\"\n");
  const Settings settings = load_settings((dir / "ocr.yaml").string(), {});
  CHECK(settings.run.task == TaskKind::ocr);
  CHECK(settings.ocr.select_data == std::vector<std::string>{"digits", "printed"});
  CHECK(settings.ocr.batch_ratio == std::vector<double>{0.7, 0.3});
  CHECK(ocr_bucket_widths(settings.ocr) == std::vector<int64_t>{96, 192, 288});
  CHECK(settings.ocr.charset == "0123456789,");  // a scalar key keeps its commas

  const Settings stepped = load_settings(std::nullopt, {"buckets=100", "imgW=350", "select_data=a,b"});
  CHECK(ocr_bucket_widths(stepped.ocr) == std::vector<int64_t>{100, 200, 300, 350});
  CHECK(stepped.ocr.select_data == std::vector<std::string>{"a", "b"});

  write_text(dir / "args.yaml", to_yaml(settings));
  const Settings reloaded = load_settings((dir / "args.yaml").string(), {});
  CHECK(to_yaml(reloaded) == to_yaml(settings));
  CHECK(reloaded.ocr.bucket_widths == settings.ocr.bucket_widths);
  CHECK(reloaded.ocr.symbol == Settings{}.ocr.symbol);  // quotes, backslash and € survive the dump
}

TEST_CASE("list keys reject bad items and mismatched lengths", "[config]") {
  CHECK_THAT(error_of(std::nullopt, {"buckets=200,100"}), Catch::Contains("ascending"));
  CHECK_THAT(error_of(std::nullopt, {"buckets=64,x"}), Catch::Contains("'buckets'"));
  CHECK_THAT(error_of(std::nullopt, {"buckets=64,700", "imgW=600"}), Catch::Contains("wider than imgW"));
  CHECK_THAT(error_of(std::nullopt, {"select_data=a,b", "batch_ratio=1"}), Catch::Contains("'select_data' names 2"));
  CHECK_THAT(error_of(std::nullopt, {"batch_ratio=0.5,-1", "select_data=a,b"}), Catch::Contains("'batch_ratio'"));
  TempDir dir("scalar-list");
  write_text(dir / "r.yaml", "batch: [8, 16]\n");
  CHECK_THAT(error_of((dir / "r.yaml").string(), {}), Catch::Contains("single value"));
}

TEST_CASE("every shipped recipe in configs/ loads", "[config]") {
  size_t recipes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TRAINER_SOURCE_DIR "/configs")) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path().string());
    CHECK_NOTHROW(load_settings(entry.path().string(), {}));
    ++recipes;
  }
  CHECK(recipes >= 4);
}
