// trainer: train vision models from YAML recipes on LibTorch.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <c10/util/Exception.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "config/key_docs.h"
#include "config/recipe.h"
#include "util/error.h"
#include "util/host_allocator.h"
#include "util/onednn_check.h"

namespace {

// Exit codes: 0 success, 1 a check failed (smoke), 2 a user error (recipe, data, files),
// 3 an internal error (a bug: please report it).
constexpr int kUserError = 2;
constexpr int kInternalError = 3;

void add_common(CLI::App* command, trainer::app::CommonOptions& options) {
  command->add_option("-c,--config", options.config, "recipe YAML file");
  command->add_flag("-q,--quiet", options.quiet, "no progress output");
  command->allow_extras();
  command->footer("Recipe keys are given as key=value after the options; `trainer keys` lists them.");
}

// Ultralytics' `yolo val model=best.pt` and `yolo predict model=best.pt source=photos/` name the
// checkpoint and the images as keys: takes `key=value` out of the overrides and returns the value
// (for model=, the checkpoint: a checkpoint's recipe fixes its architecture).
std::optional<std::string> take_argument(std::vector<std::string>& overrides, const std::string& key) {
  std::optional<std::string> value;
  std::vector<std::string> kept;
  for (const std::string& argument : trainer::normalize_overrides(overrides)) {
    if (argument.rfind(key + "=", 0) == 0) {
      value = argument.substr(key.size() + 1);
    } else {
      kept.push_back(argument);
    }
  }
  overrides = kept;
  return value;
}

// `--weights PATH` or Ultralytics' `model=PATH`, exactly one of them.
void take_weights(std::vector<std::string>& overrides, std::string& weights, const char* command) {
  const std::optional<std::string> model = take_argument(overrides, "model");
  if (model && !weights.empty()) {
    throw trainer::UserError(std::string(command) + ": --weights " + weights + " and model=" + *model +
                             " both name the checkpoint; give one");
  }
  if (model) weights = *model;
  if (weights.empty()) {
    throw trainer::UserError(std::string(command) + " needs a checkpoint: --weights PATH (or model=PATH)");
  }
}

}  // namespace

int main(int argc, char** argv) {
  trainer::keep_freed_host_memory();
  // Log lines (info, warnings) go to stderr, so stdout holds only what the command produces:
  // progress and metrics, or one line per image from `predict`, ready for a pipe.
  spdlog::set_default_logger(
      std::make_shared<spdlog::logger>("", std::make_shared<spdlog::sinks::stderr_color_sink_mt>()));
  CLI::App app{"trainer: train vision models from YAML recipes on LibTorch"};
  app.require_subcommand(1);
  trainer::app::CommonOptions options;
  std::string weights;

  CLI::App* train = app.add_subcommand("train", "train a model from a recipe");
  CLI::App* val = app.add_subcommand("val", "validate a checkpoint on its recipe's val split");
  CLI::App* predict = app.add_subcommand("predict", "classify, detect or read text in image files or folders with a checkpoint");
  CLI::App* plan = app.add_subcommand("plan", "print the resolved recipe and the batch/LR/warmup table (R26)");
  CLI::App* smoke = app.add_subcommand("smoke", "~50 updates of a tiny model with the recipe's settings (R24)");
  CLI::App* keys = app.add_subcommand("keys", "print every recipe key with its resolved value");
  CLI::App* export_command = app.add_subcommand("export", "write a checkpoint's weights alone (.pt or .safetensors)");
  const std::vector<CLI::App*> commands{train, val, predict, plan, smoke, keys};
  for (CLI::App* command : commands) add_common(command, options);
  train->footer([] { return trainer::recipe_keys_help(); });
  bool keys_markdown = false;
  keys->add_flag("--markdown", keys_markdown, "print docs/recipe-keys.md, made from the key table, instead");
  std::string keys_from;
  keys->add_option("--from", keys_from, "with --markdown: docs/ultralytics.md or docs/easyocr.md instead")
      ->check(CLI::IsMember({"ultralytics", "easyocr"}));
  val->add_option("-w,--weights", weights, "checkpoint to validate (or model=PATH)");
  std::vector<std::string> sources;
  int64_t top_k = 5;
  predict->add_option("-w,--weights", weights, "checkpoint to predict with (or model=PATH)");
  predict->add_option("-s,--source", sources, "image files or folders (or source=PATH)");
  predict->add_option("-k,--top", top_k, "classes shown per image (classification)")->check(CLI::PositiveNumber);
  int digits = 3;
  int64_t probe_updates = 0;
  CLI::Option* probe = plan->add_option("--probe", probe_updates,
                                        "also time N updates (after one warm-up) in each compile mode and print step "
                                        "time and peak memory")
                           ->expected(0, 1)
                           ->default_str("5")
                           ->check(CLI::PositiveNumber);
  std::map<std::string, trainer::CompileMode> compile_modes;
  for (const trainer::CompileMode mode : trainer::kCompileModes) compile_modes.emplace(trainer::to_string(mode), mode);
  std::vector<std::string> probe_mode_names;
  plan->add_option("--probe-modes", probe_mode_names,
                   "the compile modes --probe times, comma-separated (default: all); one per process gives each its "
                   "cold first update")
      ->delimiter(',')
      ->check(CLI::IsMember(compile_modes))
      ->needs(probe);
  predict->add_option("--digits", digits, "decimals of the probabilities or confidences shown")->check(CLI::Range(1, 9));

  // No recipe: everything export needs is in the checkpoint.
  trainer::ExportOptions export_options;
  std::string export_format, export_output;
  export_command->add_option("-w,--weights", weights, "checkpoint to export")->required();
  export_command->add_option("--format", export_format, "pt or safetensors (default: -o's extension, else safetensors)")
      ->check(CLI::IsMember({"pt", "safetensors"}));
  export_command->add_flag("--half", export_options.half, "floating tensors as fp16 (integer buffers unchanged)");
  export_command->add_flag("--model-weights", export_options.model_weights, "the model weights, not the EMA weights");
  export_command->add_option("-o,--output", export_output, "output file (default: <stem>.<format> next to the checkpoint, <stem>.weights.pt for pt)");

  // Generators of the embedded data sets; their options are the generators' own, not recipe keys.
  CLI::App* data = app.add_subcommand("data", "generate an embedded data set into data/");
  data->require_subcommand(1);
  trainer::SynthDigitsOptions digits_options;
  CLI::App* data_digits = data->add_subcommand("digits", "handwritten digit strings from OpenCV's digits.png (OCR)");
  data_digits->add_option("-o,--out", digits_options.out, "output root (gets train/ and val/)")->capture_default_str();
  data_digits->add_option("--train", digits_options.train, "training images")->check(CLI::PositiveNumber)->capture_default_str();
  data_digits->add_option("--val", digits_options.val, "validation images")->check(CLI::PositiveNumber)->capture_default_str();
  data_digits->add_option("--min-length", digits_options.min_length, "digits per string, at least")->capture_default_str();
  data_digits->add_option("--max-length", digits_options.max_length, "digits per string, at most")->capture_default_str();
  data_digits->add_option("--seed", digits_options.seed, "generator seed")->capture_default_str();
  data_digits->add_flag("--force", digits_options.force, "replace an existing set");
  trainer::SynthPrintedOptions printed_options;
  std::string script = "latin";
  CLI::App* data_printed = data->add_subcommand("printed", "printed text lines rendered with the installed fonts (OCR)");
  data_printed->add_option("-o,--out", printed_options.out, "output root (gets train/<font>/ and val/<font>/)")->capture_default_str();
  data_printed->add_option("--script", script, "latin (EasyOCR's en characters) or chinese (common hanzi)")
      ->check(CLI::IsMember({"latin", "chinese"}))->capture_default_str();
  data_printed->add_option("--train", printed_options.train, "training images")->check(CLI::PositiveNumber)->capture_default_str();
  data_printed->add_option("--val", printed_options.val, "validation images")->check(CLI::PositiveNumber)->capture_default_str();
  data_printed->add_option("--max-length", printed_options.max_length, "characters per line, at most")->capture_default_str();
  data_printed->add_option("--seed", printed_options.seed, "generator seed")->capture_default_str();
  data_printed->add_flag("--force", printed_options.force, "replace an existing set");

  trainer::SynthDetectOptions detect_options;
  detect_options.root = "data/synth-detect";
  bool detect_force = false;
  CLI::App* data_detect = data->add_subcommand("synth-detect", "shapes with exact boxes on real photographs (detection)");
  data_detect->add_option("-o,--out", detect_options.root, "output root (gets images/, labels/, data.yaml)")->capture_default_str();
  data_detect->add_option("--train", detect_options.train, "training images")->check(CLI::PositiveNumber)->capture_default_str();
  data_detect->add_option("--val", detect_options.val, "validation images")->check(CLI::PositiveNumber)->capture_default_str();
  data_detect->add_option("--imgsz", detect_options.imgsz, "long side of the images")->check(CLI::Range(32, 8192))->capture_default_str();
  data_detect->add_option("--max-objects", detect_options.max_objects, "objects per image, at most")->check(CLI::PositiveNumber)->capture_default_str();
  data_detect->add_option("--seed", detect_options.seed, "generator seed")->capture_default_str();
  data_detect->add_flag("--force", detect_force, "replace an existing set");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  }
  for (CLI::App* command : commands) {
    if (command->parsed()) options.overrides = command->remaining();
  }
  // --source takes every argument after it, so `--source a.png device=cpu` hands the override to
  // it: a key=value that names no existing file is a recipe override.
  const auto is_override = [](const std::string& source) {
    std::error_code error;
    return source.find('=') != std::string::npos && !std::filesystem::exists(source, error);
  };
  for (const auto& source : sources) {
    if (is_override(source)) options.overrides.push_back(source);
  }
  sources.erase(std::remove_if(sources.begin(), sources.end(), is_override), sources.end());

  try {
    trainer::use_correct_convolutions();
    if (train->parsed()) return trainer::app::run_train(options);
    if (val->parsed()) {
      take_weights(options.overrides, weights, "val");
      return trainer::app::run_val(options, weights);
    }
    if (predict->parsed()) {
      take_weights(options.overrides, weights, "predict");
      if (const auto source = take_argument(options.overrides, "source")) sources.push_back(*source);
      if (sources.empty()) throw trainer::UserError("predict needs images: --source PATH… (or source=PATH)");
      return trainer::app::run_predict(options, weights, sources, top_k, digits);
    }
    if (plan->parsed()) {
      std::vector<trainer::CompileMode> probe_modes;
      for (const std::string& name : probe_mode_names) probe_modes.push_back(compile_modes.at(name));
      return trainer::app::run_plan(options, plan->count("--probe") == 0 ? 0 : probe_updates > 0 ? probe_updates : 5,
                                    probe_modes);
    }
    if (smoke->parsed()) return trainer::app::run_smoke(options);
    if (keys->parsed())
      return keys_markdown ? trainer::app::run_keys_markdown(keys_from) : trainer::app::run_keys(options);
    if (data_digits->parsed()) return trainer::app::run_data_digits(digits_options);
    if (data_detect->parsed()) return trainer::app::run_data_synth_detect(detect_options, detect_force);
    if (data_printed->parsed()) {
      printed_options.script = script == "chinese" ? trainer::PrintedScript::chinese : trainer::PrintedScript::latin;
      return trainer::app::run_data_printed(printed_options);
    }
    if (export_command->parsed()) {
      if (!export_format.empty()) export_options.format = trainer::parse_weights_format(export_format);
      if (!export_output.empty()) export_options.output = export_output;
      return trainer::app::run_export(weights, export_options);
    }
  } catch (const trainer::UserError& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return kUserError;
  } catch (const c10::Error& error) {
    std::fprintf(stderr, "internal error (LibTorch): %s\n", error.what_without_backtrace());
    return kInternalError;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "internal error: %s\n", error.what());
    return kInternalError;
  }
  return kInternalError;
}
