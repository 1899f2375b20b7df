// AutoBatch (issue 46 item 5): the search of Ultralytics' utils/autobatch.py on fake memory models,
// and the CPU's fallback through the binary.
#include <catch2/catch.hpp>

#include "compile/auto_batch.h"
#include "test_helpers.h"

using namespace trainer;

namespace {

// A step that takes `fixed` GiB plus `per_sample` GiB per sample, out of memory above `limit`.
StepMemory linear_memory(double fixed, double per_sample, double limit, std::vector<int64_t>* measured = nullptr) {
  return [=](int64_t batch) -> std::optional<double> {
    if (measured) measured->push_back(batch);
    const double peak = fixed + per_sample * static_cast<double>(batch);
    if (peak > limit) return std::nullopt;
    return peak;
  };
}

}  // namespace

TEST_CASE("AutoBatch fits a line through the measured peaks and aims at the share of free memory",
          "[auto_batch]") {
  std::vector<int64_t> measured;
  // 80 GiB with 2 in use: 0.6 of 78 is 46.8, rounded to 47 GiB as Ultralytics rounds; 1 + 0.5 b = 47.
  const AutoBatchChoice h100 = choose_auto_batch({80, 2}, 0.6, 0, linear_memory(1, 0.5, 80, &measured));
  CHECK(measured == std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64});
  CHECK_FALSE(h100.fell_back);
  CHECK(h100.batch == 92);
  CHECK(h100.predicted_share == Approx((1 + 0.5 * 92 + 2) / 80.0));
  // Below 16 GiB only up to 16 is measured; the data set caps the batch and the sizes tried.
  measured.clear();
  const AutoBatchChoice small = choose_auto_batch({12, 0}, 0.9, 10, linear_memory(0.5, 0.5, 12, &measured));
  CHECK(measured == std::vector<int64_t>{1, 2, 4, 8});
  CHECK(small.batch == 10);
}

TEST_CASE("AutoBatch keeps below the first size that ran out of memory and falls back as Ultralytics does",
          "[auto_batch]") {
  // The fit promises 40 but 16 failed: the last size that fit, 8.
  const StepMemory uneven = [](int64_t batch) -> std::optional<double> {
    if (batch >= 16) return std::nullopt;
    return 0.2 * static_cast<double>(batch);
  };
  CHECK(choose_auto_batch({10, 0}, 0.8, 0, uneven).batch == 8);
  // Nothing fits: the default 16, with the reason.
  const AutoBatchChoice none = choose_auto_batch({10, 0}, 0.6, 0, [](int64_t) { return std::nullopt; });
  CHECK(none.fell_back);
  CHECK(none.batch == kAutoBatchFallback);
  CHECK_THAT(none.why, Catch::Contains("fewer than two"));
  // A fit that promises thousands is outside the safe range.
  const AutoBatchChoice huge = choose_auto_batch({80, 0}, 0.9, 0, linear_memory(0.01, 0.001, 80));
  CHECK(huge.fell_back);
  CHECK_THAT(huge.why, Catch::Contains("outside the safe range"));
  // Peaks that do not grow are noise and left out of the fit: numpy.polyfit([1, 8, 16], [1, 2, 4], 1)
  // is 0.2012 x + 0.6568, which reaches round(10 x 0.6) = 6 GiB at 26.
  const StepMemory flat = [](int64_t batch) -> std::optional<double> {
    return batch <= 4 ? 1.0 : 0.25 * static_cast<double>(batch);
  };
  CHECK(choose_auto_batch({10, 0}, 0.6, 0, flat).batch == 26);
}

TEST_CASE("batch=-1 on the CPU trains at 16 with Ultralytics' warning and records it", "[auto_batch][cli]") {
  testing::TempDir dir("auto-batch");
  testing::write_two_class_images(dir / "data", {10, 4, 16, 5});
  const testing::CommandResult run = testing::run_trainer(
      "train data=" + dir.file("data") + " model=resnet18 imgsz=16 epochs=1 workers=1 batch=-1 project=" +
      dir.file("runs") + " name=auto");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Catch::Contains("AutoBatch: intended for CUDA devices, using default batch-size 16"));
  CHECK_THAT(testing::read_text(dir / "runs" / "auto" / "args.yaml"), Catch::Contains("batch: 16\n"));
  const testing::CommandResult ranks = testing::run_trainer("train data=" + dir.file("data") +
                                                            " model=resnet18 imgsz=16 epochs=1 batch=0.7 nproc=2");
  CHECK(ranks.exit_code == 2);
  CHECK_THAT(ranks.output, Catch::Contains("give the batch size for several ranks"));
}
