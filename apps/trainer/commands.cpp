#include "commands.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <variant>

#include "compile/auto_batch.h"
#include "compile/compiled_execution.h"
#include "compile/mode_comparison.h"
#include "config/key_docs.h"
#include "config/recipe.h"
#include "config/recipe_keys.h"
#include "data/synth/synth_output.h"
#include "dist/local_launcher.h"
#include "dist/process_group.h"
#include "dist/rank_environment.h"
#include "engine/deployable.h"
#include "engine/resume.h"
#include "engine/trainer.h"
#include "families/model_family.h"
#include "families/recipes.h"
#include "io/checkpoint.h"
#include "io/pretrained.h"
#include "io/run_folder.h"
#include "io/run_lock.h"
#include "io/state_dict.h"
#include "models/trainable.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_metadata.h"
#include "onnx/opencv_model.h"
#include "run/progress.h"
#include "run/results_csv.h"
#include "run/results_plot.h"
#include "run/smoke.h"
#include "run/validation_files.h"
#include "tasks/task_factory.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/host_allocator.h"
#include "util/onednn_check.h"
#include "util/stop_signal.h"
#include "util/text.h"

namespace trainer::app {
namespace {

// The key=value arguments that build an Ultralytics checkpoint's architecture: model= its
// generation (yolo11n.yaml, the architecture alone), or a user's model yaml by its file name with
// task= the file's and the yaml dict the file carries as the definition to build.
struct ArchitectureOfFile {
  std::vector<std::string> overrides;
  CarriedDefinition carried;
};

ArchitectureOfFile architecture_of(const UltralyticsBuild& build) {
  if (build.definition.empty()) return {{"model=" + build.model + ".yaml"}, {}};
  return {{"model=" + build.model, std::string("task=") + to_string(build.task)}, {build.model, build.definition}};
}

// Ultralytics' `model=best.pt` names its architecture only inside the file: an Ultralytics
// checkpoint becomes model=<the model it is built as, yolov8n.yaml …> pretrained=<file>.
ArchitectureOfFile with_architecture_of_weights(const std::vector<std::string>& overrides) {
  ArchitectureOfFile resolved{normalize_overrides(overrides), {}};
  for (size_t i = 0; i < resolved.overrides.size(); ++i) {
    const std::string& argument = resolved.overrides[i];
    if (argument.rfind("model=", 0) != 0) continue;
    const std::filesystem::path file = argument.substr(6);
    if (file.extension() != ".pt" || !std::filesystem::is_regular_file(file)) continue;
    const PretrainedWeights weights = read_pretrained(file.string());
    const UltralyticsBuild build = weights.ultralytics ? ultralytics_build(*weights.ultralytics) : UltralyticsBuild{};
    // A generation's own name (yolov8n.pt) is the recipe loader's to split, with its checks of
    // pretrained=; yolo11n-p2.pt, which answers to yolo11 by its prefix, is read here all the same.
    if (build.model.empty() || (build.definition.empty() && task_of_model(file.stem().string()))) continue;
    ArchitectureOfFile architecture = architecture_of(build);
    resolved.overrides.erase(resolved.overrides.begin() + static_cast<std::ptrdiff_t>(i));
    resolved.overrides.insert(resolved.overrides.end(), architecture.overrides.begin(), architecture.overrides.end());
    resolved.overrides.push_back("pretrained=" + file.string());  // the architecture alone: its weights are the file
    resolved.carried = std::move(architecture.carried);
    break;
  }
  return resolved;
}

Settings settings_of(const CommonOptions& options) {
  const ArchitectureOfFile resolved = with_architecture_of_weights(options.overrides);
  Settings settings = load_settings(options.config, resolved.overrides, options.dialect, resolved.carried);
  configure_runtime(settings.run);
  if (options.quiet) spdlog::set_level(spdlog::level::warn);
  return settings;
}

void print_rows(const std::vector<std::pair<std::string, std::string>>& rows) {
  size_t width = 0;
  for (const auto& row : rows) width = std::max(width, row.first.size());
  for (const auto& [name, value] : rows) std::printf("  %-*s  %s\n", static_cast<int>(width), name.c_str(), value.c_str());
}

void print_metrics(const std::vector<std::pair<std::string, double>>& metrics) {
  for (const auto& [name, value] : metrics) std::printf("  %s: %.4f\n", name.c_str(), value);
}

// One process, this rank's micro-batch: what each rank of a job would see.
void print_mode_comparison(Task& task, const Settings& settings, const TrainingPlan& plan, int64_t updates,
                           const std::vector<CompileMode>& modes) {
  task.model().to(plan.device);
  task.model().train();
  std::printf("\n# compile modes: 1 warm-up + %lld timed updates of %lld x %lld samples each, on %s\n",
              static_cast<long long>(updates), static_cast<long long>(plan.micro_batch),
              static_cast<long long>(plan.accumulate), plan.device.str().c_str());
  const ModeComparison comparison = compare_compile_modes(task, settings, plan, updates, modes);
  std::printf("  %-16s %-44s %12s %10s %9s %10s  %s\n", "mode", "configuration", "first upd s", "s/update",
              "img/s", "peak MB", "note");
  for (const ModeProbe& probe : comparison.modes) {
    const ProbeMeasurement& m = probe.measurement;
    // Which part ran as graphs depends on the task (a loss that cannot be captured runs eagerly).
    const std::string note = m.config.graphs ? probe.note + (probe.note.empty() ? "" : "; ") + m.executor : probe.note;
    std::printf("  %-16s %-44s %12.3f %10.4f %9.1f %10.1f  %s\n", to_string(probe.mode), m.config.describe().c_str(),
                m.first_update_seconds, m.seconds_per_update, m.images_per_second, m.peak_memory_mb, note.c_str());
  }
  if (!comparison.recommended) {
    std::printf("recommendation: none of them: %s\n", comparison.reason.c_str());
    return;
  }
  std::printf("recommendation: compile=%s (%s)\n", to_string(*comparison.recommended), comparison.reason.c_str());
}

// Before any update, as Ultralytics does: labels.jpg where the task draws its labels, and
// train_batch0.jpg … train_batch2.jpg, the first micro-batches of the first epoch as the loader
// makes them.
void plot_training_data(const TaskTraining& training, const Settings& settings, const std::filesystem::path& folder) {
  training.plot_labels(folder / "labels.jpg");
  constexpr size_t kPlottedBatches = 3;
  const auto seed = static_cast<uint64_t>(settings.run.seed);
  const auto batches = training.epoch_batches(seed, 0, settings.schedule.batch);
  const Loader::Collate collate = training.train_collate(seed);
  for (size_t i = 0; i < std::min(batches.size(), kPlottedBatches); ++i) {
    training.plot_batch(collate(batches[i], 0), folder / fmt::format("train_batch{}.jpg", i));
  }
}

// Rank 0's observers of a run: the console, results.csv, results.png and the validation files.
struct RunObservers {
  std::unique_ptr<ConsoleProgress> progress;
  std::unique_ptr<ResultsCsv> csv;
  std::unique_ptr<ResultsPlot> plot;
  std::unique_ptr<ValidationFiles> validation_files;
};

// `resumed`: where a resumed run's results.csv rows end (nullopt: a new run).
RunObservers observe_run(Trainer& trainer, const Settings& settings, const RunFolder& folder,
                         std::optional<ResumedRows> resumed, bool quiet) {
  RunObservers observers;
  observers.progress = std::make_unique<ConsoleProgress>(ConsoleProgress::detect_style(quiet));
  observers.csv = std::make_unique<ResultsCsv>(folder.results_csv(), resumed);
  observers.plot =
      std::make_unique<ResultsPlot>(folder.results_png(), resumed ? folder.results_csv() : std::filesystem::path());
  trainer.add_observer(*observers.progress);
  if (settings.output.plots) trainer.add_observer(*observers.plot);  // reads the old rows before the CSV rewrites them
  trainer.add_observer(*observers.csv);
  observers.validation_files = std::make_unique<ValidationFiles>(folder.root, settings.output.plots);
  trainer.add_observer(*observers.validation_files);
  return observers;
}

void print_summary(const TrainingSummary& summary, const RunFolder& folder, const Collective& collective) {
  std::printf("finished %lld epochs (%lld updates) in %.1f s; results in %s\n",
              static_cast<long long>(summary.epochs_run), static_cast<long long>(summary.updates), summary.seconds,
              folder.root.string().c_str());
  const ExecutionReport& execution = summary.execution;
  std::printf("execution: %s; %lld input shape(s), %lld graph capture(s)%s%s\n", execution.executor.c_str(),
              static_cast<long long>(execution.input_shapes), static_cast<long long>(execution.graph_captures),
              execution.short_batch_shapes > 0
                  ? fmt::format(", {} short-batch shape(s) eager", execution.short_batch_shapes).c_str()
                  : "",
              execution.eager_shapes > 0
                  ? fmt::format(", {} shape(s) eager past compile_cache_limit", execution.eager_shapes).c_str()
                  : "");
  if (collective.distributed()) {
    std::printf("distributed: %lld ranks; gradients all-reduced %lld times in this run (once per update)\n",
                static_cast<long long>(collective.layout().world_size),
                static_cast<long long>(summary.gradient_all_reduces));
  }
  std::printf("final validation (epoch %lld):\n", static_cast<long long>(summary.epochs_run));
  print_metrics(summary.last_metrics);
  std::printf("best fitness %.4f at epoch %lld (update %lld): %s\n", summary.best_fitness,
              static_cast<long long>(summary.best_epoch), static_cast<long long>(summary.best_updates),
              summary.best_weights.string().c_str());
}

// Started by torchrun (or our launcher): this process is one rank of a job; else the whole job.
std::unique_ptr<Collective> join_job(const Settings& settings) {
  const std::optional<RankEnvironment> rank = rank_environment();
  if (!rank) return nullptr;
  return join_process_group(*rank, settings.dist.backend, resolve_device(settings.run.device, rank->layout),
                            std::chrono::seconds(settings.dist.timeout));
}

}  // namespace

int run_train(const CommonOptions& options) {
  Settings settings = settings_of(options);
  std::optional<ResumePoint> resume;
  RunFolder folder;
  if (!settings.output.resume.empty()) {
    if (options.config) throw UserError("resume takes its recipe from the checkpoint; drop --config");
    resume = prepare_resume(settings, options.overrides);
    settings = resume->settings;
    settings.run.pretrained.clear();  // the checkpoint's weights replace any starting point
    folder = resume->run_folder;
  }
  // Asked for several processes outside a job: become the launcher of this machine's ranks.
  if (!rank_environment() && launches_ranks(settings.dist)) {
    if (settings.schedule.auto_batch) {
      throw UserError("batch=-1 or a share: AutoBatch chooses one GPU's batch; give the batch size for several "
                      "ranks, as Ultralytics asks");
    }
    return launch_local_ranks(settings.dist, settings.run.device);
  }
  const std::unique_ptr<Collective> process_group = join_job(settings);
  Collective& collective = process_group ? *process_group : single_process();
  const bool main_rank = collective.layout().is_main();
  configure_runtime(settings.run, collective.layout());
  // Only rank 0 writes the run folder and prints progress; the others log warnings and errors.
  if (!main_rank) spdlog::set_level(spdlog::level::warn);

  auto task = make_task(settings);
  task->pin_derived_settings(settings);
  // The chosen batch is what args.yaml and the checkpoints record, so a resumed run keeps it.
  if (settings.schedule.auto_batch) {
    settings.schedule.batch = auto_batch(*task, settings, collective.layout());
    settings.schedule.auto_batch.reset();
  }
  if (!resume && main_rank) {
    folder = make_run_folder(runs_parent(settings.output.project, task->name()),
                             settings.output.name, settings.output.exist_ok);
    // name2 when renumbered, as Ultralytics' trainer records it (args.name = save_dir.name).
    settings.output.name = folder.root.filename().string();
  }
  // Held until the process ends; taken before this run writes anything into the folder.
  std::optional<RunLock> lock;
  if (main_rank) {
    lock.emplace(folder.root);
    // What a run killed inside a write left; the lock says no live run is writing them.
    remove_stale_temporaries(folder.root);
    remove_stale_temporaries(folder.weights());
  }
  if (!resume && main_rank) write_file_atomically(folder.args(), to_yaml(settings));
  Trainer trainer(settings, *task, main_rank ? folder.root : std::filesystem::path(), collective);
  trainer.set_step_execution(compiled_execution());
  if (resume) trainer.resume_from(resume->checkpoint);
  install_stop_signals();
  trainer.set_stop_check(stop_signal);
  RunObservers observers;
  if (main_rank) {
    const std::optional<ResumedRows> resumed =
        resume ? std::optional<ResumedRows>({resume->checkpoint.epoch, resume->checkpoint.updates}) : std::nullopt;
    observers = observe_run(trainer, settings, folder, resumed, options.quiet);
    if (settings.output.plots && !resume) plot_training_data(task->training(), settings, folder.root);
  }
  TrainingSummary summary;
  try {
    summary = trainer.fit();
  } catch (const TrainingInterrupted& interrupted) {
    if (main_rank) {
      std::fprintf(stderr, "\ninterrupted: saved %s; continue with: trainer train resume=%s\n",
                   interrupted.checkpoint().string().c_str(), interrupted.checkpoint().string().c_str());
    }
    return 128 + interrupted.signal_number();
  }
  if (main_rank) print_summary(summary, folder, collective);
  return 0;
}

// A checkpoint's model, rebuilt from the recipe stored in it (or --config) plus overrides, with
// its EMA weights when it has them: what validation and prediction evaluate.
struct TrainedModel {
  Checkpoint checkpoint;
  Settings settings;
  std::unique_ptr<Task> task;
  torch::Device device = torch::kCPU;
  std::string description;  ///< what runs: "EMA weights, epoch 3", "ONNX in OpenCV DNN"
};

// The task's deployment side; a task without one has no model to export or run elsewhere.
Deployable& deployment(Task& task) {
  Deployable* deployment = task.deployment();
  if (deployment == nullptr) throw UserError("task=" + task.name() + " has no model to export or deploy");
  return *deployment;
}

// The task's prediction side, for `trainer predict`.
Predictor& predictor(Task& task) {
  Predictor* predictor = task.predictor();
  if (predictor == nullptr) throw UserError("predict is not available for task '" + task.name() + "'");
  return *predictor;
}

// An exported ONNX file: the task rebuilt from the recipe in its metadata (pre- and
// post-processing) and the card its metadata describes (class names, normalisation: no data for
// `splits` none), validation and prediction running the file in OpenCV DNN on the CPU.
TrainedModel load_deployed(const CommonOptions& options, const std::string& path, DataSplits splits) {
  const std::map<std::string, std::string> metadata = onnx_export::read_onnx_file_info(path).metadata;
  const auto recipe = metadata.find(onnx_export::kRecipeKey);
  if (recipe == metadata.end() || metadata.count("imgsz") == 0 || metadata.count("task") == 0) {
    throw UserError(path + " was not written by `trainer export` (its metadata has no " +
                    std::string(onnx_export::kRecipeKey) + ", imgsz or task)");
  }
  std::vector<std::string> overrides{"pretrained=none"};
  overrides.insert(overrides.end(), options.overrides.begin(), options.overrides.end());
  const std::vector<int64_t> size = onnx_export::parse_imgsz(metadata.at("imgsz"));
  if (metadata.at("task") != "ocr") {
    if (size[0] != size[1]) {
      throw UserError(path + ": imgsz " + metadata.at("imgsz") +
                      " is not square, and predict and val resize to a square; export with one imgsz");
    }
    overrides.push_back("imgsz=" + std::to_string(size[0]));
  }
  overrides.push_back("device=cpu");  // OpenCV DNN runs on the CPU
  TrainedModel trained;
  const std::optional<ModelCard> card = onnx_export::card_of_metadata(metadata);
  const CarriedDefinition carried{"", card ? card->model_definition : ""};
  trained.settings = load_settings_from_yaml(recipe->second, path + ":" + onnx_export::kRecipeKey, overrides, carried);
  configure_runtime(trained.settings.run);
  trained.task = make_task(trained.settings, card ? splits : DataSplits::val, card ? &*card : nullptr);
  Deployable& deployed = deployment(*trained.task);
  deployed.deploy(std::make_shared<onnx_export::OpenCvModel>(path));
  trained.description = deployed.runtime();
  return trained;
}

// Ultralytics' own checkpoint holds no recipe of ours: the run's keys (data= for val) come from
// --config and key=value, the architecture and the weights from the file. `splits`: what the
// command needs of the data (val: the validation split; predict, export: none); a checkpoint
// without a card (written before they were) opens the validation split, for its class names.
TrainedModel load_trained(const CommonOptions& options, const std::string& weights, DataSplits splits) {
  if (std::filesystem::path(weights).extension() == ".onnx") return load_deployed(options, weights, splits);
  TrainedModel trained;
  TrainedFile file = read_trained(weights);
  trained.checkpoint = std::move(file.checkpoint);
  std::vector<std::string> overrides = options.overrides;
  overrides.insert(overrides.begin(), "pretrained=none");
  // A model built from a model-definition file is rebuilt from the text the checkpoint carries.
  CarriedDefinition carried = carried_definition(trained.checkpoint.card);
  if (file.ultralytics) {
    const UltralyticsBuild build = ultralytics_build(*file.ultralytics);
    if (build.model.empty()) {
      throw UserError(weights + ": not a model trainer builds: its layout is none of YOLOv5u, YOLOv8, YOLO11 and "
                                "YOLO26 (detection or -cls) or does not tell its scale, and it carries no model yaml "
                                "with backbone and head lists");
    }
    ArchitectureOfFile architecture = architecture_of(build);
    overrides.insert(overrides.begin(), architecture.overrides.begin(), architecture.overrides.end());
    carried = std::move(architecture.carried);
    if (trained.checkpoint.card) {
      trained.checkpoint.card->model_name = build.model;
      trained.checkpoint.card->model_definition = build.definition;
    }
    // As Ultralytics' val: the data the model was trained on unless data= says otherwise.
    if (!options.config && !file.ultralytics->data.empty())
      overrides.insert(overrides.begin(), "data=" + file.ultralytics->data);
  }
  trained.settings = options.config || file.ultralytics
                         ? load_settings(options.config, overrides, Dialect::ultralytics, carried)
                         : load_settings_from_yaml(trained.checkpoint.recipe, weights + ":recipe", overrides, carried);
  const Settings& settings = trained.settings;
  configure_runtime(settings.run);
  const Checkpoint& checkpoint = trained.checkpoint;
  const ModelCard* card = checkpoint.card ? &*checkpoint.card : nullptr;
  trained.task = make_task(settings, card != nullptr ? splits : DataSplits::val, card);
  load_state_dict(trained.task->model(), to_map(checkpoint.ema.empty() ? checkpoint.model : checkpoint.ema), true);
  trained.device = resolve_device(settings.run.device);
  trained.task->model().to(trained.device);
  trained.description = fmt::format("{} weights, epoch {}", checkpoint.ema.empty() ? "model" : "EMA", checkpoint.epoch);
  return trained;
}

int run_val(const CommonOptions& options, const std::string& weights) {
  const TrainedModel trained = load_trained(options, weights, DataSplits::val);
  const Metrics metrics = trained.task->validator().validate(trained.device);
  std::printf("%s (%s):\n", weights.c_str(), trained.description.c_str());
  print_metrics(metrics.values);
  for (const auto& line : metrics.details) std::printf("  %s\n", line.c_str());
  const Settings& settings = trained.settings;
  const bool draws_curves = settings.output.plots && !metrics.curves.empty();
  if (metrics.confusion || draws_curves) {
    const std::filesystem::path folder =
        make_numbered_folder(runs_parent(settings.output.project, trained.task->name()), "val",
                             settings.output.exist_ok);
    save_validation_files(metrics.confusion, metrics.curves, folder, settings.output.plots);
    std::printf("%s in %s\n", draws_curves ? "confusion matrix and curves" : "confusion matrix", folder.string().c_str());
  }
  return 0;
}

int run_predict(const CommonOptions& options, const std::string& weights, const std::vector<std::string>& sources,
                int64_t top_k, int digits) {
  const TrainedModel trained = load_trained(options, weights, DataSplits::none);
  PredictOptions predict_options;
  predict_options.top_k = top_k;
  predict_options.digits = digits;
  predict_options.parent = runs_parent(trained.settings.output.project, trained.task->name());
  predict_options.exist_ok = trained.settings.output.exist_ok;
  for (const auto& line : predictor(*trained.task).predict(sources, trained.device, predict_options)) {
    std::printf("%s\n", line.c_str());
  }
  return 0;
}

int run_plan(const CommonOptions& options, int64_t probe_updates, const std::vector<CompileMode>& probe_modes) {
  Settings settings = settings_of(options);
  auto task = make_task(settings);
  task->pin_derived_settings(settings);
  const TrainingPlan plan = plan_for(settings, *task, planned_world(settings.dist));
  std::printf("# resolved recipe\n%s\n# plan\n", to_yaml(settings).c_str());
  std::vector<std::pair<std::string, std::string>> rows = plan_rows(plan);
  rows.emplace_back("lr schedule", schedule_text(settings.schedule));
  rows.emplace_back("host memory", freed_host_memory_kept() ? "freed blocks kept for reuse" : "the C library's default");
  if (plan.device.is_cpu()) rows.emplace_back("convolutions", cpu_convolution_kernels());
  const ParameterCounts parameters = count_parameters(task->model());
  rows.emplace_back("parameters", fmt::format("{} ({} trainable)", parameters.total, parameters.trainable));
  print_rows(rows);
  if (probe_updates > 0) print_mode_comparison(*task, settings, plan, probe_updates, probe_modes);
  return 0;
}

int run_smoke(const CommonOptions& options) {
  const Settings settings = settings_of(options);
  const SmokeReport report = run_smoke(settings);
  std::printf("smoke: %lld updates\n", static_cast<long long>(report.updates));
  print_rows({{"loss (epoch 1 -> last)", fmt::format("{:.4f} -> {:.4f}", report.first_epoch_loss, report.last_epoch_loss)},
              {"accumulated vs big-batch gradient", fmt::format("{:.3g} (relative difference)", report.gradient_relative_error)},
              {"accumulated / unnormalised sum", fmt::format("{:.4f} (1/accumulate expected)", report.accumulated_to_sum_ratio)},
              {"checkpoint round trip", report.checkpoint_round_trip ? "identical" : "DIFFERS"}});
  for (const auto& failure : report.failures) std::fprintf(stderr, "smoke failed: %s\n", failure.c_str());
  std::printf("%s\n", report.ok() ? "smoke passed" : "smoke FAILED");
  return report.ok() ? 0 : 1;
}

int run_keys(const CommonOptions& options) {
  const Settings settings = load_settings(options.config, options.overrides, options.dialect);
  std::printf("%s", to_yaml(settings).c_str());
  return 0;
}

int run_keys_markdown(const std::string& tool) {
  const std::string text = tool.empty()            ? recipe_keys_markdown()
                           : tool == "timm"        ? tool_keys_markdown(ForeignTool::timm)
                           : tool == "ultralytics" ? tool_keys_markdown(ForeignTool::ultralytics)
                                                   : tool_keys_markdown(ForeignTool::easyocr);
  std::printf("%s", text.c_str());
  return 0;
}

namespace {

std::string shape_text(const std::vector<onnx_export::Dim>& dims) {
  std::vector<std::string> parts;
  for (const auto& dim : dims) {
    parts.push_back(std::holds_alternative<int64_t>(dim) ? std::to_string(std::get<int64_t>(dim))
                                                         : std::get<std::string>(dim));
  }
  return "[" + join(parts, ", ") + "]";
}

int run_export_onnx(const ExportRequest& request) {
  if (std::filesystem::path(request.weights).extension() == ".onnx") {
    throw UserError("export: " + request.weights + " is an ONNX file already; export from the checkpoint it came from");
  }
  CommonOptions options;
  options.overrides = {"device=cpu"};
  options.overrides.insert(options.overrides.end(), request.recipe_overrides.begin(), request.recipe_overrides.end());
  TrainedModel trained = load_trained(options, request.weights, DataSplits::none);
  if (request.model_weights) {
    load_state_dict(trained.task->model(), to_map(model_weights_of(trained.checkpoint, request.weights)), true);
  }
  trained.task->model().eval();
  const Deployable& deployed = deployment(*trained.task);
  ModelCard card = deployed.model_card();
  card.recipe = to_yaml(trained.settings);
  const onnx_export::OnnxFile file = onnx_export::export_onnx(deployed.export_graph(), card, request.onnx);
  const std::filesystem::path output =
      request.output.value_or(std::filesystem::path(request.weights).replace_extension(".onnx"));
  write_file_atomically(output, file.bytes);
  std::printf("exported %s (%s weights, epoch %lld) to %s: opset %lld%s, input %s, output %s\noperators: %s\n",
              card.model_name.c_str(), request.model_weights || trained.checkpoint.ema.empty() ? "model" : "EMA",
              static_cast<long long>(trained.checkpoint.epoch), output.string().c_str(),
              static_cast<long long>(request.onnx.opset), request.onnx.half ? ", fp16" : "",
              shape_text(file.input).c_str(), shape_text(file.output).c_str(), join(file.operators, ", ").c_str());
  return 0;
}

}  // namespace

int run_export(const ExportRequest& request) {
  if (request.format == "onnx") return run_export_onnx(request);
  ExportOptions options;
  if (!request.format.empty()) options.format = parse_weights_format(request.format);
  options.output = request.output;
  options.half = request.half;
  options.model_weights = request.model_weights;
  const ExportResult result = export_weights(request.weights, options);
  std::printf("exported %zu tensors (%s weights, epoch %lld%s) to %s\n", result.tensors, result.ema ? "EMA" : "model",
              static_cast<long long>(result.epoch), options.half ? ", fp16" : "", result.output.string().c_str());
  return 0;
}

namespace {

int report_generated(const SynthSetSummary& summary, const char* recipe) {
  std::printf("wrote %lld training and %lld validation images to %s (EasyOCR format: <split>/<folder>/labels.csv)\n"
              "train on it with: trainer train --config %s\n",
              static_cast<long long>(summary.train), static_cast<long long>(summary.val), summary.root.string().c_str(),
              recipe);
  return 0;
}

}  // namespace

int run_data_digits(const SynthDigitsOptions& options) {
  return report_generated(write_synth_digits(options), "configs/crnn-digits.yaml");
}

int run_data_printed(const SynthPrintedOptions& options) {
  return report_generated(write_synth_printed(options), "configs/crnn-printed.yaml");
}

int run_data_synth_detect(const SynthDetectOptions& options, bool force) {
  const std::filesystem::path root = options.root;
  prepare_generated_root(root, {"images", "labels", "data.yaml"}, force);
  write_synth_detect(options);
  std::printf("wrote %lld training and %lld validation images with YOLO labels to %s\n"
              "train on it with: trainer train --config configs/yolov8n-synth.yaml\n",
              static_cast<long long>(options.train), static_cast<long long>(options.val), (root / "data.yaml").string().c_str());
  return 0;
}

}  // namespace trainer::app
