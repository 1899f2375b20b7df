// Compile modes on the CPU (R1–R3, R25): what each mode resolves to, the per-shape capture
// bookkeeping, channels-last training and checkpoints, the probe that leaves the model untouched,
// and max-autotune's decision cache. CUDA-graph replay itself is tested under the gpu label.
#include <catch2/catch.hpp>

#include <fstream>

#include "families/recipes.h"
#include <cmath>
#include <cstring>
#include <limits>

#include "compile/autotune.h"
#include "compile/captured_graph.h"
#include "compile/compiled_execution.h"
#include "compile/cuda_graph.h"
#include "compile/execution_probe.h"
#include "compile/graph_executor.h"
#include "compile/shape_registry.h"
#include "data/normalized_input.h"
#include "engine/eager_executor.h"
#include "engine/execution_config.h"
#include "engine/trainer.h"
#include "engine/training_components.h"
#include "io/checkpoint.h"
#include "io/state_dict.h"
#include "optim/param_groups.h"
#include "tasks/smoke_task.h"
#include "tasks/task_factory.h"
#include "test_helpers.h"
#include "test_skip.h"

using namespace trainer;
using namespace trainer::testing;

namespace {

Settings two_class_settings(const TempDir& dir, std::vector<std::string> extra = {}) {
  write_two_class_images(dir / "data", {8, 4, 16, 5, "a", "b"});
  std::vector<std::string> overrides{"data=" + dir.file("data"), "imgsz=16", "epochs=1", "batch=4", "accumulate=2",
                                     "device=cpu", "workers=0", "optimizer=adamw", "lr0=0.01", "warmup_updates=0",
                                     "crop_pad=0", "fliplr=0", "hsv_h=0", "hsv_s=0", "hsv_v=0",
                                     "project=" + dir.file("runs")};
  overrides.insert(overrides.end(), extra.begin(), extra.end());
  return load_settings(std::nullopt, overrides);
}

bool all_contiguous(torch::nn::Module& model) {
  for (const auto& p : model.parameters()) {
    if (!p.is_contiguous()) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("each compile mode resolves to its documented configuration", "[compile]") {
  const c10::Device cpu(c10::kCPU);
  const c10::Device cuda(c10::kCUDA, 0);  // resolving needs no CUDA runtime

  SECTION("none is plain eager everywhere") {
    for (const auto& device : {cpu, cuda}) {
      const ResolvedExecution resolved = resolve_execution(CompileMode::none, device, true, true);
      CHECK(resolved.config == ExecutionConfig{});
      CHECK(resolved.candidates.empty());
      CHECK(resolved.unavailable.empty());
    }
  }
  SECTION("on the CPU nothing CUDA-only is turned on, and graphs are reported unavailable") {
    CHECK(resolve_execution(CompileMode::standard, cpu, true, true).config == ExecutionConfig{});
    const ResolvedExecution graphs = resolve_execution(CompileMode::reduce_overhead, cpu, false, true);
    CHECK_FALSE(graphs.config.graphs);
    CHECK_THAT(graphs.unavailable, Catch::Contains("CUDA-graph capture needs a CUDA device"));
    CHECK(graphs.unavailable_changes_run);
    const ResolvedExecution autotune = resolve_execution(CompileMode::max_autotune, cpu, false, true);
    CHECK_THAT(autotune.unavailable, Catch::Contains("measures memory layouts only"));
    CHECK_FALSE(autotune.unavailable_changes_run);
    REQUIRE(autotune.candidates.size() == 2);  // memory layout only
    CHECK_FALSE(autotune.candidates[0].channels_last);
    CHECK(autotune.candidates[1].channels_last);
    CHECK(resolve_execution(CompileMode::max_autotune, cpu, false, false).candidates.size() == 1);
  }
  SECTION("on CUDA default autotunes cuDNN and uses TF32; channels-last only for conv models under AMP") {
    const ExecutionConfig mixed = resolve_execution(CompileMode::standard, cuda, true, true).config;
    CHECK(mixed.cudnn_benchmark);
    CHECK(mixed.tf32);
    CHECK(mixed.channels_last);
    CHECK_FALSE(mixed.graphs);
    CHECK_FALSE(resolve_execution(CompileMode::standard, cuda, false, true).config.channels_last);
    CHECK_FALSE(resolve_execution(CompileMode::standard, cuda, true, false).config.channels_last);
    const ResolvedExecution graphs = resolve_execution(CompileMode::reduce_overhead, cuda, true, true);
    CHECK(graphs.config.graphs);
    CHECK(graphs.unavailable.empty());
    CHECK(resolve_execution(CompileMode::max_autotune, cuda, true, true).candidates.size() == 4);
  }
  CHECK(ExecutionConfig{true, true, true, true}.describe() == "cuDNN autotuning + TF32 + channels-last + CUDA graphs");
}

TEST_CASE("the shape registry captures each new shape once, up to the limit, then runs eager", "[compile]") {
  CapturedLog log;
  ShapeRegistry registry(2, {3});
  const auto key = [](std::vector<int64_t> shape) { return shape; };
  const auto first = registry.lookup({8, 1, 32, 64}, key({8, 1, 32, 64}));
  CHECK(first.action == ShapeRegistry::Action::capture);
  CHECK(first.slot == 0);
  CHECK_THAT(first.reason, Catch::Contains("new input shape [8, 1, 32, 64] (first batch)"));
  const auto wider = registry.lookup({8, 1, 32, 96}, key({8, 1, 32, 96}));
  CHECK(wider.action == ShapeRegistry::Action::capture);
  CHECK(wider.slot == 1);
  CHECK_THAT(wider.reason, Catch::Contains("dim 3 64 -> 96 (dynamic)"));
  const auto again = registry.lookup({8, 1, 32, 64}, key({8, 1, 32, 64}));
  CHECK(again.action == ShapeRegistry::Action::replay);
  CHECK(again.slot == 0);
  // Past the limit: eager, with one warning for the run.
  CHECK(registry.lookup({5, 1, 32, 64}, key({5, 1, 32, 64})).action == ShapeRegistry::Action::eager);
  CHECK(registry.lookup({3, 1, 32, 64}, key({3, 1, 32, 64})).action == ShapeRegistry::Action::eager);
  CHECK(registry.lookup({5, 1, 32, 64}, key({5, 1, 32, 64})).action == ShapeRegistry::Action::eager);
  CHECK(registry.shapes() == 4);
  CHECK(registry.captures() == 2);
  CHECK(registry.eager_shapes() == 2);
  CHECK(count_lines(log.text(), "compile_cache_limit (2) reached") == 1);
  CHECK_THAT(log.text(), Catch::Contains("dim 0 8 -> 5 (short batch)"));
  CHECK(count_lines(log.text(), "graph capture") == 2);

  SECTION("short batches run eagerly, whatever the limit, and take no slot") {
    CapturedLog short_log;
    ShapeRegistry tails(1, {3}, 8);
    CHECK(tails.lookup({5, 1, 32, 64}, key({5, 1, 32, 64})).action == ShapeRegistry::Action::eager);
    const auto full = tails.lookup({8, 1, 32, 64}, key({8, 1, 32, 64}));
    CHECK(full.action == ShapeRegistry::Action::capture);
    CHECK_THAT(full.reason, Catch::Contains("(first batch)"));  // the tail before it is no reference
    CHECK(tails.lookup({3, 1, 32, 96}, key({3, 1, 32, 96})).action == ShapeRegistry::Action::eager);
    CHECK(tails.lookup({5, 1, 32, 64}, key({5, 1, 32, 64})).action == ShapeRegistry::Action::eager);
    CHECK(tails.shapes() == 3);
    CHECK(tails.short_shapes() == 2);
    CHECK(tails.eager_shapes() == 0);
    CHECK(count_lines(short_log.text(), "short batches") == 1);
    CHECK(count_lines(short_log.text(), "compile_cache_limit") == 0);
  }
}

TEST_CASE("channels-last trains like the contiguous layout and saves the same checkpoint keys", "[compile]") {
  TempDir dir("compile-layout");
  // SGD and GroupNorm: AdamW's first steps are sign-like and BatchNorm over 4 samples of 1x1
  // features is ill-conditioned, so either would blow rounding-level differences up.
  const Settings settings = two_class_settings(dir, {"optimizer=sgd", "norm=gn"});
  auto contiguous = make_task(settings);
  auto channels_last = make_task(settings);  // same seed: same weights and data
  apply_memory_format(channels_last->model(), true);
  CHECK_FALSE(all_contiguous(channels_last->model()));
  const TrainingPlan plan = plan_for(settings, *contiguous);
  const auto batches = probe_batches(*contiguous, settings, plan, 4);
  std::vector<NamedTensors> weights;
  for (Task* task : {contiguous.get(), channels_last.get()}) {
    ExecutionConfig config;
    config.channels_last = task == channels_last.get();
    TrainingComponents components = build_training_components(settings, plan, task->model());
    EagerExecutor executor(*task, *components.optimizer, *components.scaler, components.ema.get(),
                           {plan.device, plan.amp_dtype, settings.optim.grad_clip, config});
    for (size_t i = 0; i < batches.size(); ++i) {
      executor.micro_step(batches[i], 8);

      if (i % 2 == 1) executor.update();
    }
    weights.push_back(state_dict(task->model()));
  }
  CHECK_FALSE(all_contiguous(channels_last->model()));  // the optimizer kept the layout
  CHECK(max_relative_difference(weights[0], weights[1]) < 1e-5);

  const auto path = dir / "layout.pt";
  Checkpoint checkpoint;
  checkpoint.task = "classify";
  checkpoint.model = weights[1];
  save_checkpoint(path, checkpoint);
  const Checkpoint loaded = load_checkpoint(path);
  REQUIRE(loaded.model.size() == weights[0].size());
  for (size_t i = 0; i < loaded.model.size(); ++i) {
    CHECK(loaded.model[i].first == weights[0][i].first);
    CHECK(loaded.model[i].second.is_contiguous());
    CHECK(torch::equal(loaded.model[i].second, weights[1][i].second));
  }
}

TEST_CASE("a probe measures updates and leaves the model exactly as it was", "[compile]") {
  TempDir dir("compile-probe");
  const Settings settings = two_class_settings(dir);
  auto task = make_task(settings);
  const TrainingPlan plan = plan_for(settings, *task);
  const auto batches = probe_batches(*task, settings, plan, 4);
  REQUIRE(batches.size() == 4);
  NamedTensors before;
  for (const auto& [name, tensor] : state_dict(task->model())) before.emplace_back(name, tensor.clone());
  const torch::Tensor generator_before = at::detail::getDefaultCPUGenerator().get_state();
  std::vector<const void*> storage_before;
  for (const auto& p : task->model().parameters()) storage_before.push_back(p.data_ptr());
  ExecutionConfig config;
  config.channels_last = true;
  const ProbeMeasurement measured = probe_execution(*task, settings, plan, config, batches, 2);
  CHECK(measured.seconds_per_update > 0);
  CHECK(measured.first_update_seconds > 0);
  // Each micro-step of the first update, then its update step, within the first update's time.
  REQUIRE(measured.first_update_parts.size() == static_cast<size_t>(plan.accumulate) + 1);
  double parts_sum = 0;
  for (const double part : measured.first_update_parts) {
    CHECK(part > 0);
    parts_sum += part;
  }
  CHECK(parts_sum <= measured.first_update_seconds);
  CHECK(measured.images_per_second > 0);
  CHECK(measured.peak_memory_mb > 0);
  CHECK(measured.executor == "eager");
  CHECK(identical(before, state_dict(task->model())));
  CHECK(all_contiguous(task->model()));
  // Tensors whose layout the probe kept are restored in place (cuDNN's packed LSTM weights stay
  // packed); the convolutions' weights went channels-last and back.
  const auto parameters = task->model().parameters();
  size_t in_place = 0;
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (parameters[i].dim() != 4) {
      CHECK(parameters[i].data_ptr() == storage_before[i]);
      ++in_place;
    }
  }
  CHECK(in_place > 0);
  for (const auto& p : parameters) CHECK_FALSE(p.grad().defined());
  CHECK(torch::equal(generator_before, at::detail::getDefaultCPUGenerator().get_state()));
}

TEST_CASE("max-autotune stores its decision per key and the next start reuses it", "[compile]") {
  TempDir dir("compile-autotune");
  const AutotuneCache cache(dir / "cache");
  const std::string key = "task=classify model=resnet18 input=[4, 3, 16, 16] libtorch=" TORCH_VERSION;
  CHECK_FALSE(cache.find(key).has_value());
  ExecutionConfig decision;
  decision.channels_last = true;
  cache.store(key, decision, {});
  REQUIRE(cache.find(key).has_value());
  CHECK(*cache.find(key) == decision);
  CHECK_FALSE(cache.find(key + " other").has_value());

  SECTION("an unreadable decision is measured again, not trusted") {
    CapturedLog log;
    write_text(cache.file_for(key), "{\"key\": ");
    CHECK_FALSE(cache.find(key).has_value());
    CHECK_THAT(log.text(), Catch::Contains("ignoring the unreadable autotune decision"));
  }
  SECTION("a training run measures, stores, and a second start reuses the decision") {
    const Settings settings = two_class_settings(dir, {"compile=max-autotune", "compile_cache_dir=" + dir.file("runs-cache")});
    CapturedLog log;
    auto first = make_task(settings);
    Trainer first_run(settings, *first);
    first_run.set_step_execution(compiled_execution());
    first_run.fit();
    CHECK(count_lines(log.text(), "probing ") == 4);  // 2 candidates taking turns twice
    CHECK(count_lines(log.text(), "max-autotune: chose") == 1);
    size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir / "runs-cache")) {
      files += entry.path().extension() == ".json";
    }
    CHECK(files == 1);
    auto second = make_task(settings);
    Trainer second_run(settings, *second);
    second_run.set_step_execution(compiled_execution());
    second_run.fit();
    CHECK(count_lines(log.text(), "probing ") == 4);  // no new measurements
    CHECK(count_lines(log.text(), "max-autotune: reusing the decision") == 1);
  }
}

TEST_CASE("measuring the candidates leaves no trace in the training that follows", "[compile]") {
  // Every candidate runs real updates (weights, BatchNorm statistics, the generator move); a run
  // after them must compute exactly what a run without them computes.
  TempDir dir("compile-same");
  const Settings eager = two_class_settings(dir);
  const Settings autotuned = two_class_settings(dir, {"compile=max-autotune"});
  auto reference = make_task(eager);
  Trainer(eager, *reference).fit();
  auto tuned = make_task(eager);
  const TrainingPlan plan = plan_for(autotuned, *tuned);
  const ResolvedExecution resolved = resolve_execution(CompileMode::max_autotune, plan.device, false, true);
  REQUIRE(resolved.candidates.size() == 2);
  CapturedLog log;
  autotune_execution(*tuned, autotuned, plan, resolved.candidates, single_process());
  CHECK(count_lines(log.text(), "probing ") == 4);
  Trainer(eager, *tuned).fit();
  CHECK(identical(state_dict(reference->model()), state_dict(tuned->model())));
}

// A channels-last fault like LibTorch 2.6's on the CPU (docs/training.md, "Known problem"): the
// smoke task's loss comes out 1.5 times too large while its model has the channels-last layout.
// A 2 x 2 x 2 x 2 buffer shows the layout; the smoke net's one-channel tensors look alike in both.
struct ChannelsLastFaultTask : SmokeTask {
  ChannelsLastFaultTask(int64_t samples, uint64_t seed) : SmokeTask(samples, seed) {
    layout_witness = model().register_buffer("layout_witness", torch::zeros({2, 2, 2, 2}));
  }
  LossOutput loss(const Batch& batch) override {
    LossOutput output = SmokeTask::loss(batch);
    if (!layout_witness.is_contiguous()) {
      output.total = output.total * 1.5;
      output.parts = output.parts * 1.5;
    }
    return output;
  }
  torch::Tensor layout_witness;
};

TEST_CASE("max-autotune leaves out a configuration that computes other numbers, however fast", "[compile]") {
  TempDir dir("compile-fault");
  const Settings settings = load_settings(
      std::nullopt, {"device=cpu", "workers=0", "batch=8", "accumulate=2", "compile=max-autotune",
                     "compile_cache_dir=" + dir.file("cache")});
  const ResolvedExecution resolved = resolve_execution(CompileMode::max_autotune, torch::kCPU, false, true);
  REQUIRE(resolved.candidates.size() == 2);
  REQUIRE(resolved.candidates[1].channels_last);
  SECTION("a faulty layout") {
    ChannelsLastFaultTask task(64, 3);
    const TrainingPlan plan = plan_for(settings, task);
    CapturedLog log;
    const ExecutionConfig chosen = autotune_execution(task, settings, plan, resolved.candidates, single_process());
    CHECK_FALSE(chosen.channels_last);
    CHECK(count_lines(log.text(), "max-autotune: leaving out channels-last") == 1);
    CHECK(task.layout_witness.is_contiguous());  // the model is back as it was
  }
  SECTION("a sound one computes alike and stays a candidate") {
    SmokeTask task(64, 3);
    const TrainingPlan plan = plan_for(settings, task);
    CapturedLog log;
    autotune_execution(task, settings, plan, resolved.candidates, single_process());
    CHECK(count_lines(log.text(), "leaving out") == 0);
  }
}

TEST_CASE("trainer plan --probe times every compile mode and recommends one", "[compile][cli]") {
  TempDir dir("compile-plan");
  write_two_class_images(dir / "data", {8, 4, 16, 5, "a", "b"});
  const CommandResult probed = run_trainer("plan data=" + dir.file("data") +
                                           " imgsz=16 batch=4 accumulate=2 device=cpu workers=0 --probe 2");
  INFO(probed.output);
  REQUIRE(probed.exit_code == 0);
  CHECK_THAT(probed.output, Catch::Contains("1 warm-up + 2 timed updates of 4 x 2 samples each, on cpu"));
  for (const char* mode : {"\n  none ", "\n  default ", "\n  reduce-overhead ", "\n  max-autotune "}) {
    CHECK_THAT(probed.output, Catch::Contains(mode));
  }
  CHECK_THAT(probed.output, Catch::Contains("fastest of: eager "));
  CHECK_THAT(probed.output, Catch::Contains("recommendation: compile="));

  const std::string recipe = "plan data=" + dir.file("data") + " imgsz=16 batch=4 accumulate=2 device=cpu workers=0";
  const CommandResult chosen = run_trainer(recipe + " --probe 1 --probe-modes reduce-overhead,none");
  INFO(chosen.output);
  REQUIRE(chosen.exit_code == 0);
  const size_t reduce_overhead = chosen.output.find("\n  reduce-overhead ");
  const size_t none = chosen.output.find("\n  none ");
  REQUIRE(reduce_overhead != std::string::npos);
  REQUIRE(none != std::string::npos);
  CHECK(reduce_overhead < none);  // in the order asked for
  CHECK(chosen.output.find("\n  default ") == std::string::npos);
  CHECK(chosen.output.find("\n  max-autotune ") == std::string::npos);
  const CommandResult unknown = run_trainer(recipe + " --probe 1 --probe-modes none,turbo");
  CHECK(unknown.exit_code != 0);
  CHECK_THAT(unknown.output, Catch::Contains("turbo"));
  CHECK(run_trainer(recipe + " --probe-modes none").exit_code != 0);  // needs --probe

  const CommandResult plain = run_trainer("plan data=" + dir.file("data") + " imgsz=16 device=cpu");
  CHECK(plain.exit_code == 0);
  CHECK(plain.output.find("recommendation") == std::string::npos);
}

TEST_CASE("the run summary names the memory layout max-autotune's decision keeps", "[compile][cli]") {
  TempDir dir("compile-summary");
  write_two_class_images(dir / "data", {8, 4, 16, 5, "a", "b"});
  const std::string train = "train data=" + dir.file("data") + " imgsz=16 batch=4 epochs=1 val=false device=cpu "
                            "workers=0 compile=max-autotune compile_cache_dir=" + dir.file("cache") +
                            " project=" + dir.file("runs");
  const CommandResult measured = run_trainer(train);
  INFO(measured.output);
  REQUIRE(measured.exit_code == 0);
  CHECK_THAT(measured.output, Catch::Contains("max-autotune: chose"));
  std::filesystem::path decision_file;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "cache")) decision_file = entry.path();
  REQUIRE_FALSE(decision_file.empty());
  // Which layout the measurement picks depends on the machine; the stored decision is what a
  // later start obeys, so set it both ways.
  for (const bool channels_last : {true, false}) {
    std::string decision = read_text(decision_file);
    for (const char* stored : {"\"channels_last\":true", "\"channels_last\":false"}) {
      const size_t at = decision.find(stored);
      if (at != std::string::npos) {
        decision.replace(at, std::string(stored).size(),
                         channels_last ? "\"channels_last\":true" : "\"channels_last\":false");
      }
    }
    write_text(decision_file, decision);
    const CommandResult reused = run_trainer(train);
    INFO(reused.output);
    REQUIRE(reused.exit_code == 0);
    CHECK_THAT(reused.output, Catch::Contains("max-autotune: reusing the decision"));
    CHECK_THAT(reused.output, Catch::Contains(channels_last ? "execution: eager, channels-last; " : "execution: eager; "));
  }
}

namespace {

// Replays by running the recorded function again: the graph executor's static buffers, warm-up,
// per-shape slots and device-side loss weights are exercised as a CUDA graph would use them.
class RerunGraph : public CapturedGraph {
 public:
  explicit RerunGraph(int& captures) : captures_(captures) {}
  void warm_up(const std::function<void()>& work) override { work(); }
  void capture(const std::function<void()>& work) override {
    work_ = work;
    ++captures_;
  }
  void replay() override { work_(); }

 private:
  int& captures_;
  std::function<void()> work_;
};

struct MicroStep {
  std::vector<size_t> indices;
  int64_t group_samples;
  bool padding = false;
  bool poisoned = false;  ///< NaN inputs: the update must be skipped
  bool ends_group = false;
};

// Groups of 4+4, 4+2 (a short batch: a second shape), a padding micro-batch, a NaN group that is
// skipped, and the first shape again: every graph slot is replayed with new data.
std::vector<MicroStep> mixed_steps() {
  return {{{0, 1, 2, 3}, 8}, {{4, 5, 6, 7}, 8, false, false, true},
          {{8, 9, 10, 11}, 6}, {{12, 13}, 6, false, false, true},
          {{14, 15, 0, 1}, 4, false, false, false}, {{2, 3, 4, 5}, 4, true, false, true},
          {{6, 7, 8, 9}, 4, false, true, true},
          {{10, 11, 12, 13}, 8}, {{1, 3, 5, 7}, 8, false, false, true},
          {{14, 15}, 2, false, false, true}};
}

// A two-class batch with its pixels normalised on the CPU, as the task would normalise them in the
// step (the same values): a float input can be poisoned with inf or NaN, pixels cannot.
Batch as_float(Batch batch) {
  batch.input = normalized_input(batch.input, {{0.485, 0.456, 0.406}, {0.229, 0.224, 0.225}});
  return batch;
}

// Runs `steps` through `executor` on `task`'s training samples and returns the statistics.
StepStats run_steps(Task& task, StepExecutor& executor, const std::vector<MicroStep>& steps) {
  const Loader::Collate collate = task.training().train_collate(7);
  for (const MicroStep& step : steps) {
    Batch batch = as_float(collate(step.indices, 0));
    if (step.poisoned) batch.input.fill_(std::numeric_limits<float>::quiet_NaN());
    executor.micro_step(batch, step.group_samples, step.padding);
    if (step.ends_group) executor.update();
  }
  return executor.read_stats();
}

// The statistics of mixed_steps() run twice, bit for bit: 6 updates, the NaN one skipped.
void check_same_mixed_step_stats(const StepStats& expected, const StepStats& replayed) {
  // The NaN batch makes the logged loss NaN in both; bit patterns compare it too.
  REQUIRE(replayed.loss_sums.size() == expected.loss_sums.size());
  CHECK(std::isnan(expected.loss_sums[0]));
  CHECK(std::memcmp(replayed.loss_sums.data(), expected.loss_sums.data(), sizeof(double) * expected.loss_sums.size()) == 0);
  CHECK(replayed.grad_norm == expected.grad_norm);
  CHECK(replayed.samples == expected.samples);
  CHECK(replayed.updates == 6);
  CHECK(replayed.skipped_updates == 1);
  CHECK(expected.skipped_updates == 1);
}

// The smoke task with its loss declared not capture-safe: graphed through its loss split, as OCR is.
// It counts the model's forward passes that really run (a rerun graph's capture runs none).
struct EagerLossTask : SmokeTask {
  using SmokeTask::SmokeTask;
  bool loss_capture_safe() const override { return false; }
  torch::Tensor model_output(const Batch& batch) override {
    ++forwards;
    return SmokeTask::model_output(batch);
  }
  int64_t forwards = 0;
};

}  // namespace

TEST_CASE("the graph executor replays exactly what the eager executor computes", "[compile]") {
  TempDir dir("compile-graphs");
  // GroupNorm: a BatchNorm's running statistics would turn NaN with the poisoned batch.
  const Settings settings = two_class_settings(dir, {"optimizer=sgd", "ema=true", "grad_clip=0.5", "norm=gn"});
  const std::vector<MicroStep> steps = mixed_steps();
  const int64_t limit = GENERATE(8, 1);
  // 4: the [2, ...] batches are short (tails) and run eagerly without taking a graph slot.
  const int64_t micro_batch = GENERATE(0, 4);
  INFO("compile_cache_limit " << limit << ", micro_batch " << micro_batch);

  auto eager_task = make_task(settings);
  auto graph_task = make_task(settings);
  const TrainingPlan plan = plan_for(settings, *eager_task);
  TrainingComponents eager_parts = build_training_components(settings, plan, eager_task->model());
  TrainingComponents graph_parts = build_training_components(settings, plan, graph_task->model());
  const StepConfig config{plan.device, plan.amp_dtype, settings.optim.grad_clip, ExecutionConfig{}, limit, micro_batch};
  EagerExecutor eager(*eager_task, *eager_parts.optimizer, *eager_parts.scaler, eager_parts.ema.get(), config);
  int captures = 0;
  CapturedLog log;
  GraphExecutor graphs(*graph_task, *graph_parts.optimizer, *graph_parts.scaler, graph_parts.ema.get(), config,
                       single_process(), [&] { return std::make_unique<RerunGraph>(captures); });
  for (auto* parts : {&eager_parts, &graph_parts}) {
    for (size_t g = 0; g < parts->optimizer->group_count(); ++g) parts->optimizer->set_lr(g, 0.05);
  }

  const StepStats expected = run_steps(*eager_task, eager, steps);
  const StepStats replayed = run_steps(*graph_task, graphs, steps);
  CHECK(identical(state_dict(eager_task->model()), state_dict(graph_task->model())));
  CHECK(identical(eager_parts.ema->state(), graph_parts.ema->state()));
  check_same_mixed_step_stats(expected, replayed);

  const ExecutionReport report = graphs.report();
  CHECK(report.input_shapes == 2);  // [4, 3, 16, 16] and [2, 3, 16, 16]
  const int64_t short_shapes = micro_batch == 4 ? 1 : 0;
  const int64_t full_shapes = 2 - short_shapes;
  CHECK(report.short_batch_shapes == short_shapes);
  CHECK(report.graph_captures == std::min<int64_t>(limit, full_shapes) + 1);  // + the update graph
  CHECK(report.eager_shapes == full_shapes - std::min<int64_t>(limit, full_shapes));
  CHECK(captures == report.graph_captures);
  CHECK(count_lines(log.text(), "graph capture") == static_cast<size_t>(report.graph_captures));
  CHECK(count_lines(log.text(), "short batches (fewer than 4 samples") == static_cast<size_t>(short_shapes));
}

TEST_CASE("a task whose loss is not capture-safe has its model graphed around the eager loss", "[compile]") {
  const std::vector<MicroStep> steps = mixed_steps();
  const int64_t limit = GENERATE(8, 1);
  const std::optional<at::ScalarType> amp =
      GENERATE(as<std::optional<at::ScalarType>>{}, std::nullopt, at::kBFloat16);
  INFO("compile_cache_limit " << limit << ", amp " << (amp ? "bf16" : "off"));

  EagerLossTask eager_task(32, 3);
  EagerLossTask graph_task(32, 3);
  FusedOptimizerOptions options;
  options.kind = OptimizerKind::adamw;
  FusedOptimizer eager_optimizer(make_param_groups(eager_task.model(), 0.01, 0.0), options);
  FusedOptimizer graph_optimizer(make_param_groups(graph_task.model(), 0.01, 0.0), options);
  LossScaler eager_scaler(false, torch::kCPU);
  LossScaler graph_scaler(false, torch::kCPU);
  const StepConfig config{torch::kCPU, amp, 0.5, ExecutionConfig{}, limit};
  EagerExecutor eager(eager_task, eager_optimizer, eager_scaler, nullptr, config);
  int captures = 0;
  CapturedLog log;
  GraphExecutor graphs(graph_task, graph_optimizer, graph_scaler, nullptr, config, single_process(),
                       [&] { return std::make_unique<RerunGraph>(captures); });

  const StepStats expected = run_steps(eager_task, eager, steps);
  const StepStats replayed = run_steps(graph_task, graphs, steps);
  CHECK(identical(state_dict(eager_task.model()), state_dict(graph_task.model())));
  check_same_mixed_step_stats(expected, replayed);
  // One forward per micro-batch, as eagerly: a second one would update BatchNorm's statistics twice.
  CHECK(graph_task.forwards == eager_task.forwards);

  const ExecutionReport report = graphs.report();
  CHECK_THAT(report.executor, Catch::Contains("not capture-safe"));
  CHECK(report.input_shapes == 2);
  // A forward and a backward graph per captured shape, and the update graph.
  CHECK(report.graph_captures == 2 * std::min<int64_t>(limit, 2) + 1);
  CHECK(report.eager_shapes == 2 - std::min<int64_t>(limit, 2));
  CHECK(captures == report.graph_captures);
  CHECK(count_lines(log.text(), "graph capture") == static_cast<size_t>(report.graph_captures));
}

TEST_CASE("CUDA graphs of a model around an eager loss follow the eager loss trajectory", "[compile][.gpu]") {
  require_cuda_device();
  const torch::Device cuda(torch::kCUDA);
  constexpr int kUpdates = 40;
  std::vector<std::vector<double>> losses(2);
  std::vector<NamedTensors> weights;
  for (const bool graphed : {false, true}) {
    EagerLossTask task(96, 3);
    task.model().to(cuda);
    FusedOptimizerOptions options;
    options.kind = OptimizerKind::adamw;
    FusedOptimizer optimizer(make_param_groups(task.model(), 0.01, 0.0), options);
    LossScaler scaler(true, cuda);
    const StepConfig config{cuda, at::kHalf, 1.0, ExecutionConfig{}, 8};
    std::unique_ptr<StepExecutor> executor;
    if (graphed) {
      executor = std::make_unique<GraphExecutor>(task, optimizer, scaler, nullptr, config, single_process(),
                                                 cuda_graph_factory(cuda));
    } else {
      executor = std::make_unique<EagerExecutor>(task, optimizer, scaler, nullptr, config);
    }
    for (int update = 0; update < kUpdates; ++update) {
      // Groups of 8 + 4 samples: two input shapes, each replayed with new samples.
      std::vector<size_t> indices;
      for (size_t i = 0; i < 12; ++i) indices.push_back((static_cast<size_t>(update) * 12 + i) % 96);
      for (const auto& [first, count] : {std::pair<size_t, size_t>{0, 8}, {8, 4}}) {
        Batch batch = task.batch_of({indices.begin() + first, indices.begin() + first + count});
        batch.to(cuda);
        executor->micro_step(batch, 12);
      }
      executor->update();
      losses[graphed].push_back(executor->read_stats().mean_losses().at(0));
    }
    if (graphed) CHECK(executor->report().graph_captures == 2 * 2 + 1);  // forward + backward per shape, update
    weights.push_back(state_dict(task.model()));
  }
  for (size_t i = 0; i < losses[0].size(); ++i) {
    INFO("update " << i);
    CHECK(losses[1][i] == Approx(losses[0][i]).epsilon(1e-2));
  }
  CHECK(max_relative_difference(weights[0], weights[1]) < 1e-2);
}

TEST_CASE("a loss that is not capture-safe and cannot be split is refused", "[compile]") {
  struct UnsplitTask : SmokeTask {
    using SmokeTask::SmokeTask;
    bool loss_capture_safe() const override { return false; }
    LossSplit* loss_split() override { return nullptr; }
  };
  UnsplitTask task(8, 3);
  FusedOptimizer optimizer(make_param_groups(task.model(), 0.01, 0.0), FusedOptimizerOptions{});
  LossScaler scaler(false, torch::kCPU);
  CHECK_THROWS_WITH(GraphExecutor(task, optimizer, scaler, nullptr, {}, single_process(),
                                  [] { return std::unique_ptr<CapturedGraph>(); }),
                    Catch::Contains("needs a loss_split()"));
}

TEST_CASE("CUDA graphs follow the eager loss trajectory and skip an injected inf inside the graph",
          "[compile][.gpu]") {
  require_cuda_device();
  TempDir dir("compile-cuda");
  write_two_class_images(dir / "data", {64, 4, 32, 5, "a", "b"});
  const Settings settings = load_settings(
      std::nullopt, {"data=" + dir.file("data"), "imgsz=32", "batch=8", "accumulate=2", "device=cuda", "amp=fp16",
                     "workers=0", "optimizer=sgd", "lr0=0.01", "warmup_updates=0", "crop_pad=0", "fliplr=0",
                     "hsv_h=0", "hsv_s=0", "hsv_v=0",
                     // The EMA runs inside the update graph: a short ramp makes its decay change
                     // from update to update, so a graph that kept the captured decay would part.
                     "ema_tau=5", "ema_decay=0.9"});
  constexpr int kUpdates = 50;
  constexpr int kPoisoned = 20;
  std::vector<std::vector<double>> losses(2);
  std::vector<std::vector<int64_t>> skipped(2);
  std::vector<NamedTensors> weights;
  std::vector<NamedTensors> averages;
  for (const bool graphed : {false, true}) {
    auto task = make_task(settings);
    const TrainingPlan plan = plan_for(settings, *task);
    task->model().to(plan.device);
    TrainingComponents parts = build_training_components(settings, plan, task->model());
    // The default first scale (65536) overflows fp16 now and then in the first updates, and whether
    // a borderline update overflows differs with the last bit of the arithmetic: a skip in one run
    // and not the other would part the trajectories. At 1024 only the injected inf skips.
    parts.scaler = std::make_unique<LossScaler>(true, plan.device, LossScalerOptions{1024.0});
    ExecutionConfig config;
    config.graphs = graphed;
    const auto executor =
        compiled_execution().make_executor(*task, *parts.optimizer, *parts.scaler, parts.ema.get(),
                                           {plan.device, plan.amp_dtype, settings.optim.grad_clip, config, 8},
                                           single_process());
    const Loader::Collate collate = task->training().train_collate(3);
    for (int update = 0; update < kUpdates; ++update) {
      // Parameters only: the poisoned forward pass spoils BatchNorm's running statistics either way.
      const auto parameters = [&] {
        NamedTensors out;
        for (const auto& item : task->model().named_parameters()) out.emplace_back(item.key(), item.value().clone());
        return out;
      };
      const NamedTensors before = update == kPoisoned ? parameters() : NamedTensors{};
      for (size_t m = 0; m < 2; ++m) {
        // Both classes in every micro-batch (the set lists one class, then the other): a run of
        // one class drives the loss to 0 and then the next to 7, which makes a trajectory
        // sensitive to rounding.
        std::vector<size_t> indices;
        for (size_t i = 0; i < 8; ++i) indices.push_back((static_cast<size_t>(update) * 16 + m * 8 + i) * 37 % 128);
        Batch batch = as_float(collate(indices, 0));
        if (update == kPoisoned) batch.input.fill_(std::numeric_limits<float>::infinity());
        batch.to(plan.device);
        executor->micro_step(batch, 16);
      }
      executor->update();
      const StepStats stats = executor->read_stats();
      skipped[graphed].push_back(stats.skipped_updates);
      if (update == kPoisoned) {
        CHECK(identical(before, parameters()));  // the replayed update changed nothing
      } else {
        losses[graphed].push_back(stats.mean_losses().at(0));
      }
    }
    if (graphed) CHECK(executor->report().graph_captures == 2);  // one micro-batch shape + the update
    weights.push_back(state_dict(task->model()));
    NamedTensors average;
    for (const auto& [name, tensor] : parts.ema->state()) average.emplace_back(name, tensor.clone());
    averages.push_back(std::move(average));
  }
  std::vector<int64_t> expected_skips(kUpdates, 0);
  expected_skips[kPoisoned] = 1;
  CHECK(skipped[0] == expected_skips);
  CHECK(skipped[1] == expected_skips);
  for (size_t i = 0; i < losses[0].size(); ++i) {
    INFO("update " << i);
    CHECK(losses[1][i] == Approx(losses[0][i]).epsilon(1e-2));
  }
  // Compared without the running statistics the poisoned batch spoiled.
  const auto parameters_of = [](const NamedTensors& all) {
    NamedTensors out;
    for (const auto& [name, tensor] : all) {
      if (name.find("running_") == std::string::npos && name.find("num_batches") == std::string::npos) {
        out.emplace_back(name, tensor);
      }
    }
    return out;
  };
  CHECK(max_relative_difference(parameters_of(weights[0]), parameters_of(weights[1])) < 1e-2);
  CHECK(max_relative_difference(parameters_of(averages[0]), parameters_of(averages[1])) < 1e-2);
  // The first run on the H200 crashed (SIGSEGV) after the check above, while this scope was torn
  // down; freeing the weights here, where an assertion follows, shows whether they are the cause.
  weights.clear();
  averages.clear();
  SUCCEED("both runs' weights freed");
}
