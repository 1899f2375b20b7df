// Times what a recipe's data costs before any model runs: building the task (scanning and
// verifying the data set) and then the training loader's batches (decoding, augmentation and
// collation on `workers` threads) with nothing consuming them but this loop; with --epoch N the
// epochs before N run whole first (so cache=ram has filled its memory before the timing).
// scripts/bench-loader compares it with torchvision's DataLoader on the same folder. With --stages
// (classification) the batches are made on this thread, and the time per sample of each stage of
// the collate is printed too.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>

#include "engine/trainer.h"
#include "families/recipes.h"
#include "tasks/classify_task.h"
#include "tasks/task_factory.h"
#include "util/error.h"
#include "util/host_allocator.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Milliseconds per sample of each stage, as key=value fields.
void print_stages(const trainer::ClassifyStageTimes& times) {
  const double per_sample = 1e3 / double(std::max<int64_t>(times.samples, 1));
  std::printf("stage_ms_per_sample crop=%.3f decode=%.3f resize=%.3f jitter=%.3f flip=%.3f collate=%.3f\n",
              times.crop * per_sample, times.decode * per_sample, times.resize * per_sample,
              times.jitter * per_sample, times.flip * per_sample, times.collate * per_sample);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"time a recipe's data set scan and training loader"};
  std::optional<std::string> config;
  std::vector<std::string> overrides;
  int64_t batches = 50, warmup = 5, timed_epoch = 0;
  bool stages = false;
  app.add_option("--config", config, "recipe YAML");
  app.add_option("overrides", overrides, "key=value recipe overrides");
  app.add_option("--batches", batches, "timed batches")->check(CLI::PositiveNumber);
  app.add_option("--warmup", warmup, "untimed batches first (the loader filling its prefetch queue)");
  app.add_option("--epoch", timed_epoch,
                 "the epoch timed; those before it run whole first, untimed (cache=ram fills its memory there)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--stages", stages, "classification: one thread, and the time of each collate stage per sample");
  CLI11_PARSE(app, argc, argv);
  // As the trainer binary does: freed buffers stay in the process, so a sample's images do not
  // fault fresh pages in each time.
  trainer::keep_freed_host_memory();
  try {
    spdlog::set_level(spdlog::level::warn);
    const trainer::Settings settings = trainer::load_settings(config, overrides);
    trainer::configure_runtime(settings.run);

    const auto scan_start = std::chrono::steady_clock::now();
    const auto task = trainer::make_task(settings);
    const double scan_seconds = seconds_since(scan_start);

    const auto seed = static_cast<uint64_t>(settings.run.seed);
    trainer::ClassifyStageTimes stage_times;
    const auto* classify = dynamic_cast<const trainer::ClassifyTask*>(task.get());
    if (stages && !classify) throw trainer::UserError("--stages times the classification loader only");
    trainer::Loader loader(stages ? classify->train_collate(seed, &stage_times) : task->training().train_collate(seed),
                           stages ? 0 : settings.data.workers, settings.data.prefetch);
    const auto earlier_start = std::chrono::steady_clock::now();
    for (int64_t earlier = 0; earlier < timed_epoch; ++earlier) {
      loader.start_epoch(task->training().epoch_batches(seed, earlier, settings.schedule.batch), earlier);
      while (loader.next()) {
      }
    }
    const double earlier_seconds = seconds_since(earlier_start);
    auto epoch = task->training().epoch_batches(seed, timed_epoch, settings.schedule.batch);
    const size_t wanted = static_cast<size_t>(warmup + batches);
    if (epoch.size() < wanted) {
      throw trainer::UserError("the epoch has " + std::to_string(epoch.size()) + " batches of " +
                               std::to_string(settings.schedule.batch) + ", fewer than --warmup + --batches = " +
                               std::to_string(wanted));
    }
    epoch.resize(wanted);
    loader.start_epoch(std::move(epoch), timed_epoch);
    for (int64_t i = 0; i < warmup; ++i) loader.next();
    stage_times = {};
    int64_t images = 0;
    const auto start = std::chrono::steady_clock::now();
    while (auto batch = loader.next()) images += batch->size;
    const double seconds = seconds_since(start);
    std::printf("task_build_seconds=%.3f earlier_epochs_seconds=%.3f images=%lld seconds=%.3f images_per_second=%.1f "
                "workers=%lld\n",
                scan_seconds, earlier_seconds, static_cast<long long>(images), seconds, double(images) / seconds,
                static_cast<long long>(stages ? 0 : settings.data.workers));
    if (stages) print_stages(stage_times);
    return 0;
  } catch (const trainer::UserError& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
}
