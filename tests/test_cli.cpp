// The trainer binary end to end on tiny data: train writes a complete run folder whose
// checkpoints Python reads; bad input exits non-zero with a message naming the problem.
#include <catch2/catch.hpp>

#include "run/results_csv.h"
#include "test_helpers.h"
#include "util/onednn_check.h"

using namespace trainer::testing;

TEST_CASE("train writes a run folder that trainer val and Python read", "[cli][e2e]") {
  TempDir dir("cli-train");
  write_two_class_images(dir / "data");
  write_text(dir / "data" / "train" / "dark" / "broken.png", "not a png");
  const auto project = dir / "runs";
  const CommandResult train = run_trainer(
      "train data=" + (dir / "data").string() + " model=resnet18 epochs=2 batch=4 accumulate=2 imgsz=16 workers=1 "
      "max_bad_fraction=0.1 optimizer=adamw lr0=0.001 project=" + project.string() + " name=tiny");
  INFO(train.output);
  REQUIRE(train.exit_code == 0);
  CHECK_THAT(train.output, Catch::Contains("broken.png"));
  CHECK_THAT(train.output, Catch::Contains("top1"));
  const auto run = project / "tiny";
  for (const char* file : {"args.yaml", "results.csv", "results.png", "train_batch0.jpg", "train_batch2.jpg",
                           "weights/last.pt", "weights/best.pt"}) {
    INFO(file);
    CHECK(std::filesystem::exists(run / file));
  }
  const std::string csv = read_text(run / "results.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 3);
  CHECK_THAT(csv, Catch::StartsWith("epoch,train/loss,val/loss,top1,top5,lr"));

  // The last validation's confusion matrix: each of the 12 validation images once, under its
  // class ("bright", "dark"), its diagonal the top-1 of results.csv's last row.
  CHECK(std::filesystem::exists(run / "confusion_matrix.png"));
  const auto confusion = read_confusion_counts(run / "confusion_matrix.csv");
  REQUIRE(confusion.size() == 2);
  REQUIRE(confusion[0].size() == 2);
  CHECK(confusion[0][0] + confusion[1][0] == 6);
  CHECK(confusion[0][1] + confusion[1][1] == 6);
  const trainer::ResultsTable results = trainer::read_results(run / "results.csv");
  CHECK(results.header.at(3) == "top1");
  CHECK(static_cast<double>(confusion[0][0] + confusion[1][1]) / 12.0 == Approx(results.rows.back().at(3)));

  const CommandResult val = run_trainer("val --weights " + (run / "weights" / "best.pt").string());
  INFO(val.output);
  CHECK(val.exit_code == 0);
  CHECK_THAT(val.output, Catch::Contains("top1"));
  CHECK_THAT(val.output, Catch::Contains("confusion matrix in " + (project / "val").string()));
  const auto val_confusion = read_confusion_counts(project / "val" / "confusion_matrix.csv");
  REQUIRE(val_confusion.size() == 2);
  CHECK(val_confusion[0][0] + val_confusion[1][0] + val_confusion[0][1] + val_confusion[1][1] == 12);
  CHECK(std::filesystem::exists(project / "val" / "confusion_matrix.png"));

  const CommandResult predict = run_trainer("predict --weights " + (run / "weights" / "best.pt").string() +
                                            " --top 2 --source " + (dir / "data" / "val" / "bright").string() + " " +
                                            (dir / "data" / "val" / "dark" / "0.png").string());
  INFO(predict.output);
  CHECK(predict.exit_code == 0);
  CHECK(count_lines(predict.output, ".png: ") == 7);  // 6 + 1 images
  CHECK_THAT(predict.output, Catch::Contains("0.png: ") && Catch::Contains("bright 0.") && Catch::Contains("dark 0."));
  // Ultralytics' spelling: the checkpoint as model=, the images as source=.
  const CommandResult keyed = run_trainer("predict model=" + (run / "weights" / "best.pt").string() +
                                          " source=" + (dir / "data" / "val" / "dark" / "0.png").string());
  INFO(keyed.output);
  CHECK(keyed.exit_code == 0);
  CHECK(count_lines(keyed.output, ".png: ") == 1);
  const CommandResult no_images = run_trainer("predict model=" + (run / "weights" / "best.pt").string() +
                                              " --source " + (dir / "nothing-here").string());
  CHECK(no_images.exit_code == 2);
  CHECK_THAT(no_images.output, Catch::Contains("nothing-here"));
  const CommandResult no_weights = run_trainer("val");
  CHECK(no_weights.exit_code == 2);
  CHECK_THAT(no_weights.output, Catch::Contains("--weights PATH (or model=PATH)"));

  // Python reads the checkpoint with weights_only=True and torchvision takes the weights strictly.
  const CommandResult python = run_command(
      "/usr/bin/python3 -c \"import torch, torchvision; c = torch.load('" + (run / "weights" / "last.pt").string() +
      "', weights_only=True); m = torchvision.models.resnet18(num_classes=2); m.load_state_dict(c['model'], strict=True); "
      "m.load_state_dict(c['ema'], strict=True); print('epoch', c['epoch'], 'keys', len(c['model']))\"");
  INFO(python.output);
  CHECK(python.exit_code == 0);
  CHECK_THAT(python.output, Catch::Contains("epoch 2"));

  const CommandResult again = run_trainer("train data=" + (dir / "data").string() + " epochs=1 batch=4 imgsz=16 "
                                          "max_bad_fraction=0.1 val=false plots=false project=" + project.string() + " name=tiny");
  CHECK(again.exit_code == 0);
  CHECK(std::filesystem::exists(project / "tiny2" / "weights" / "last.pt"));
  // The renumbered folder's args.yaml names it, as Ultralytics' trainer sets args.name =
  // save_dir.name.
  CHECK_THAT(read_text(project / "tiny2" / "args.yaml"), Catch::Contains("\nname: tiny2\n"));
  CHECK(std::filesystem::exists(project / "tiny2" / "confusion_matrix.csv"));
  CHECK_FALSE(std::filesystem::exists(project / "tiny2" / "confusion_matrix.png"));
  CHECK_FALSE(std::filesystem::exists(project / "tiny2" / "train_batch0.jpg"));
}

TEST_CASE("train with random resized crops, RandAugment, erasing, MixUp and CutMix, then validate", "[cli][e2e]") {
  TempDir dir("cli-augment");
  TwoClassImages images;
  images.side = 24;  // larger than imgsz, so every crop is resized
  write_two_class_images(dir / "data", images);
  const auto project = dir / "runs";
  // Batch 5 of 24 images: an odd batch (its middle sample mixes with itself) and a short last one.
  const CommandResult train = run_trainer(
      "train data=" + (dir / "data").string() + " model=resnet18 epochs=2 batch=5 accumulate=2 imgsz=16 workers=2 "
      "scale=0.6 auto_augment=randaugment randaugment_magnitude=15 erasing=0.5 mixup_alpha=0.4 cutmix_alpha=1 mixup_switch_prob=0.5 label_smoothing=0.1 "
      "crop_fraction=0.9 optimizer=adamw lr0=0.001 project=" + project.string() + " name=mixed");
  INFO(train.output);
  REQUIRE(train.exit_code == 0);
  const auto run = project / "mixed";
  const std::string csv = read_text(run / "results.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 3);
  CHECK(csv.find("nan") == std::string::npos);
  const std::string args = read_text(run / "args.yaml");
  CHECK_THAT(args, Catch::Contains("auto_augment: randaugment") && Catch::Contains("randaugment_magnitude: 15"));
  const CommandResult val = run_trainer("val --weights " + (run / "weights" / "best.pt").string());
  INFO(val.output);
  CHECK(val.exit_code == 0);
  CHECK_THAT(val.output, Catch::Contains("top1"));
}

TEST_CASE("plan prints the batch, accumulation and LR table", "[cli]") {
  TempDir dir("cli-plan");
  write_two_class_images(dir / "data");
  const CommandResult plan = run_trainer("plan data=" + (dir / "data").string() + " batch=8 accumulate=4 epochs=3 lr_scale=linear");
  INFO(plan.output);
  REQUIRE(plan.exit_code == 0);
  CHECK_THAT(plan.output, Catch::Contains("effective batch        32"));
  CHECK_THAT(plan.output, Catch::Contains("updates / epoch        1"));
  CHECK_THAT(plan.output, Catch::Contains("micro-batches / epoch  3"));
  CHECK_THAT(plan.output, Catch::Contains("warmup updates"));
  CHECK_THAT(plan.output, Catch::Contains("parameters             11177538 (11177538 trainable)"));
  // ResNet18's first five layers: conv1 9,408, bn1 128, relu, maxpool, layer1 147,968.
  const CommandResult frozen = run_trainer("plan data=" + (dir / "data").string() + " freeze=5");
  INFO(frozen.output);
  REQUIRE(frozen.exit_code == 0);
  CHECK_THAT(frozen.output, Catch::Contains("freeze: conv1, bn1, relu, maxpool, layer1"));
  CHECK_THAT(frozen.output, Catch::Contains("parameters             11177538 (11020034 trainable)"));
#if TRAINER_TEST_GLIBC_HEAP
  // The binary keeps freed host memory from its first line (docs/benchmarks.md, "Host memory").
  CHECK_THAT(plan.output, Catch::Contains("host memory            freed blocks kept for reuse"));
  // This test binary ran the same start-up oneDNN check on the same LibTorch.
  CHECK_THAT(plan.output, Catch::Contains(std::string("convolutions           ") + trainer::cpu_convolution_kernels()));
#endif
}

TEST_CASE("smoke passes with accumulation and fails loudly on a bad recipe", "[cli][smoke]") {
  const CommandResult smoke = run_trainer("smoke batch=8 accumulate=4 optimizer=sgd lr0=0.05");
  INFO(smoke.output);
  CHECK(smoke.exit_code == 0);
  CHECK_THAT(smoke.output, Catch::Contains("smoke passed"));
  CHECK_THAT(smoke.output, Catch::Contains("checkpoint round trip"));
}

TEST_CASE("bad input exits non-zero and names the problem", "[cli]") {
  TempDir dir("cli-errors");
  const CommandResult unknown = run_trainer("train epoch=3");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.output, Catch::Contains("did you mean 'epochs'"));

  const CommandResult missing = run_trainer("train --config " + (dir / "nope.yaml").string());
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Catch::Contains("nope.yaml"));

  write_text(dir / "bad.yaml", "batch: 8\nlr0: fast\n");
  const CommandResult typed = run_trainer("plan --config " + (dir / "bad.yaml").string());
  CHECK(typed.exit_code == 2);
  CHECK_THAT(typed.output, Catch::Contains("bad.yaml:2:6"));

  const CommandResult data = run_trainer("train data=" + (dir / "no-such-data").string());
  CHECK(data.exit_code == 2);
  CHECK_THAT(data.output, Catch::Contains("no-such-data"));

  const CommandResult fp16 = run_trainer("smoke device=cpu amp=fp16");
  CHECK(fp16.exit_code == 2);
  CHECK_THAT(fp16.output, Catch::Contains("amp=fp16 needs a CUDA device"));

  const CommandResult weights = run_trainer("val --weights " + (dir / "missing.pt").string());
  CHECK(weights.exit_code == 2);
  CHECK_THAT(weights.output, Catch::Contains("missing.pt"));
}
