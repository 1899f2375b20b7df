#include "command_line.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "config/command_arguments.h"
#include "config/key_docs.h"
#include "config/recipe.h"
#include "grammar.h"
#include "small_commands.h"
#include "util/error.h"

namespace trainer::app {
namespace {

void add_common(CLI::App* command, CommonOptions& options) {
  command->add_option("-c,--config", options.config, "recipe YAML file (or cfg=FILE)");
  command->add_flag("-q,--quiet", options.quiet, "no progress output");
  command->allow_extras();
  command->footer(
      "Recipe keys are given as key=value (or --key value, as timm's flags) after the options; `trainer keys` lists "
      "them.");
}

// Ultralytics' `yolo val model=best.pt` and `yolo predict model=best.pt source=photos/` name the
// checkpoint and the images as keys: takes `key=value` out of the overrides and returns the value
// (for model=, the checkpoint: a checkpoint's recipe fixes its architecture).
std::optional<std::string> take_argument(std::vector<std::string>& overrides, const std::string& key) {
  std::optional<std::string> value;
  std::vector<std::string> kept;
  for (const std::string& argument : overrides) {
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
    throw UserError(std::string(command) + ": --weights " + weights + " and model=" + *model +
                    " both name the checkpoint; give one");
  }
  if (model) weights = *model;
  if (weights.empty()) {
    throw UserError(std::string(command) + " needs a checkpoint: --weights PATH (or model=PATH)");
  }
}

// Ultralytics' `cfg=FILE` is --config FILE.
void take_config(CommonOptions& options) {
  const std::optional<std::string> file = take_argument(options.overrides, "cfg");
  if (!file) return;
  if (options.config)
    throw UserError("--config " + *options.config + " and cfg=" + *file + " both name the recipe; give one");
  options.config = *file;
}

// --source takes every argument after it, so `--source a.png device=cpu` hands the override to
// it: a key=value that names no existing file is a recipe override.
void move_overrides_out_of_sources(std::vector<std::string>& sources, std::vector<std::string>& overrides) {
  const auto is_override = [](const std::string& source) {
    std::error_code error;
    return source.find('=') != std::string::npos && !std::filesystem::exists(source, error);
  };
  for (const auto& source : sources) {
    if (is_override(source)) overrides.push_back(source);
  }
  sources.erase(std::remove_if(sources.begin(), sources.end(), is_override), sources.end());
}

}  // namespace

CommandLine::CommandLine() {
  app_.require_subcommand(1);
  add_model_commands();
  add_export();
  add_data();
  add_small_commands();
}

void CommandLine::add_model_commands() {
  ParsedOptions& o = options_;
  commands_["train"] = app_.add_subcommand("train", "train a model from a recipe");
  commands_["val"] = app_.add_subcommand("val", "validate a checkpoint on its recipe's val split");
  commands_["predict"] =
      app_.add_subcommand("predict", "classify, detect or read text in image files or folders with a checkpoint");
  commands_["plan"] = app_.add_subcommand("plan", "print the resolved recipe and the batch/LR/warmup table (R26)");
  commands_["smoke"] = app_.add_subcommand("smoke", "~50 updates of a tiny model with the recipe's settings (R24)");
  commands_["keys"] = app_.add_subcommand("keys", "print every recipe key with its resolved value");
  for (const char* name : {"train", "val", "predict", "plan", "smoke", "keys"}) {
    recipe_commands_.push_back(commands_[name]);
    add_common(commands_[name], o.common);
  }
  commands_["train"]->footer([] { return recipe_keys_help(); });
  CLI::Option* markdown = commands_["keys"]->add_flag("--markdown", o.keys_markdown,
                                                      "print docs/recipe-keys.md, made from the key table, instead");
  commands_["keys"]
      ->add_option("--from", o.keys_from,
                   "with --markdown: what another tool's keys are here: docs/timm.md, docs/ultralytics.md or "
                   "docs/easyocr.md")
      ->check(CLI::IsMember({"timm", "ultralytics", "easyocr"}))
      ->needs(markdown);
  commands_["val"]->add_option("-w,--weights", o.weights, "checkpoint to validate (or model=PATH)");
  CLI::App* predict = commands_["predict"];
  predict->add_option("-w,--weights", o.weights, "checkpoint to predict with (or model=PATH)");
  predict->add_option("-s,--source", o.sources, "image files or folders (or source=PATH)");
  predict->add_option("-k,--top", o.top_k, "classes shown per image (classification)")->check(CLI::PositiveNumber);
  predict->add_option("--digits", o.digits, "decimals of the probabilities or confidences shown")
      ->check(CLI::Range(1, 9));
  CLI::App* plan = commands_["plan"];
  CLI::Option* probe = plan->add_option("--probe", o.probe_updates,
                                        "also time N updates (after one warm-up) in each compile mode and print step "
                                        "time and peak memory")
                           ->expected(0, 1)
                           ->default_str("5")
                           ->check(CLI::PositiveNumber);
  std::vector<std::string> mode_names;
  for (const CompileMode mode : kCompileModes) mode_names.emplace_back(to_string(mode));
  plan->add_option("--probe-modes", o.probe_modes,
                   "the compile modes --probe times, comma-separated (default: all); one per process gives each its "
                   "cold first update")
      ->delimiter(',')
      ->check(CLI::IsMember(mode_names))
      ->needs(probe);
}

// No recipe: everything export needs is in the checkpoint (ONNX: and the names its data gives).
void CommandLine::add_export() {
  ParsedOptions& o = options_;
  CLI::App* command = commands_["export"] =
      app_.add_subcommand("export", "write a checkpoint's weights alone (.pt, .safetensors) or its model as ONNX");
  command->add_option("-w,--weights", o.weights, "checkpoint to export (or model=PATH)");
  command
      ->add_option("--format", o.export_request.format,
                   "pt, safetensors or onnx (or format=…; default: -o's extension, else safetensors)")
      ->check(CLI::IsMember({"pt", "safetensors", "onnx"}));
  command->add_flag("--half", o.export_request.half, "floating tensors as fp16 (integer buffers unchanged)");
  command->add_flag("--model-weights", o.export_request.model_weights, "the model weights, not the EMA weights");
  command->add_option("-o,--output", o.export_output,
                      "output file (default: <stem>.<format> next to the checkpoint, <stem>.weights.pt for pt)");
  command->allow_extras();
  command->footer(
      "ONNX: format=onnx [imgsz=640|H,W] [batch=1] [dynamic] [half] [opset=12] [simplify] [end2end=false] [max_det=300] (docs/export.md)");
}

// Generators of the embedded data sets; their options are the generators' own, not recipe keys.
void CommandLine::add_data() {
  ParsedOptions& o = options_;
  CLI::App* data = app_.add_subcommand("data", "generate an embedded data set into data/");
  data->require_subcommand(1);
  SynthDigitsOptions& digits = o.digits_options;
  CLI::App* data_digits = commands_["data digits"] =
      data->add_subcommand("digits", "handwritten digit strings from OpenCV's digits.png (OCR)");
  data_digits->add_option("-o,--out", digits.out, "output root (gets train/ and val/)")->capture_default_str();
  data_digits->add_option("--train", digits.train, "training images")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  data_digits->add_option("--val", digits.val, "validation images")->check(CLI::PositiveNumber)->capture_default_str();
  data_digits->add_option("--min-length", digits.min_length, "digits per string, at least")->capture_default_str();
  data_digits->add_option("--max-length", digits.max_length, "digits per string, at most")->capture_default_str();
  data_digits->add_option("--seed", digits.seed, "generator seed")->capture_default_str();
  data_digits->add_flag("--force", digits.force, "replace an existing set");
  SynthPrintedOptions& printed = o.printed_options;
  CLI::App* data_printed = commands_["data printed"] =
      data->add_subcommand("printed", "printed text lines rendered with the installed fonts (OCR)");
  data_printed->add_option("-o,--out", printed.out, "output root (gets train/<font>/ and val/<font>/)")
      ->capture_default_str();
  data_printed->add_option("--script", o.script, "latin (EasyOCR's en characters) or chinese (common hanzi)")
      ->check(CLI::IsMember({"latin", "chinese"}))
      ->capture_default_str();
  data_printed->add_option("--train", printed.train, "training images")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  data_printed->add_option("--val", printed.val, "validation images")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  data_printed->add_option("--max-length", printed.max_length, "characters per line, at most")->capture_default_str();
  data_printed->add_option("--seed", printed.seed, "generator seed")->capture_default_str();
  data_printed->add_flag("--force", printed.force, "replace an existing set");
  SynthDetectOptions& detect = o.detect_options;
  detect.root = "data/synth-detect";
  CLI::App* data_detect = commands_["data synth-detect"] =
      data->add_subcommand("synth-detect", "shapes with exact boxes on real photographs (detection)");
  data_detect->add_option("-o,--out", detect.root, "output root (gets images/, labels/, data.yaml)")
      ->capture_default_str();
  data_detect->add_option("--train", detect.train, "training images")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  data_detect->add_option("--val", detect.val, "validation images")->check(CLI::PositiveNumber)->capture_default_str();
  data_detect->add_option("--imgsz", detect.imgsz, "long side of the images")
      ->check(CLI::Range(32, 8192))
      ->capture_default_str();
  data_detect->add_option("--max-objects", detect.max_objects, "objects per image, at most")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  data_detect->add_option("--seed", detect.seed, "generator seed")->capture_default_str();
  data_detect->add_flag("--force", o.detect_force, "replace an existing set");
}

// Ultralytics' special commands, the same words.
void CommandLine::add_small_commands() {
  app_.set_version_flag("--version", trainer_version());
  commands_["help"] = app_.add_subcommand("help", "print this help");
  commands_["version"] = app_.add_subcommand("version", "print the version");
  commands_["checks"] = app_.add_subcommand(
      "checks", "versions, threads, the oneDNN check, GPUs, free memory and disk; exit 1 when something is missing");
  commands_["copy-cfg"] = app_.add_subcommand("copy-cfg",
                                              "write the default recipe, every key with its help, to "
                                              "default_copy.yaml");
  commands_["cfg"] = app_.add_subcommand("cfg", "print the default recipe");
  CLI::App* settings = commands_["settings"] =
      app_.add_subcommand("settings",
                          "print the user settings (datasets_dir, runs_dir, weights_dir); "
                          "`settings key=value` changes, "
                          "`settings reset` removes them");
  settings->add_option("assignments", options_.settings_arguments, "key=value … or reset");
}

void CommandLine::parse(std::vector<std::string> arguments) {
  arguments = arguments_in_our_order(std::move(arguments));
  std::reverse(arguments.begin(), arguments.end());  // CLI11 takes them last first
  app_.parse(arguments);
  take_overrides();
}

// The key=value overrides in any of the spellings users bring, and what the keys name that is not
// a recipe key (cfg=, and source= of predict).
void CommandLine::take_overrides() {
  CommonOptions& common = options_.common;
  for (CLI::App* command : recipe_commands_) {
    if (command->parsed()) common.overrides = command->remaining();
  }
  move_overrides_out_of_sources(options_.sources, common.overrides);
  CommandOverrides read = read_command_arguments(common.overrides);
  common.dialect = read.dialect;
  common.overrides = with_resume_spelling(read.overrides);
  take_config(common);
}

int CommandLine::run() {
  ParsedOptions& o = options_;
  const auto parsed = [this](const char* name) { return commands_.at(name)->parsed(); };
  if (parsed("train")) return run_train(o.common);
  if (parsed("val")) {
    take_weights(o.common.overrides, o.weights, "val");
    return run_val(o.common, o.weights);
  }
  if (parsed("predict")) {
    take_weights(o.common.overrides, o.weights, "predict");
    if (const auto source = take_argument(o.common.overrides, "source")) o.sources.push_back(*source);
    if (o.sources.empty()) {
      // Ultralytics falls back to the two photos it ships (bus.jpg, zidane.jpg); none ship here.
      throw UserError(
          "predict needs images: source=PATH (a file, folder or glob) or --source PATH…; no sample images "
          "are shipped here, where Ultralytics falls back to its own");
    }
    return run_predict(o.common, o.weights, o.sources, o.top_k, o.digits);
  }
  if (parsed("plan")) {
    std::vector<CompileMode> modes;
    for (const std::string& name : o.probe_modes) {
      for (const CompileMode mode : kCompileModes) {
        if (name == to_string(mode)) modes.push_back(mode);
      }
    }
    const bool probe = commands_.at("plan")->count("--probe") > 0;
    return run_plan(o.common, !probe ? 0 : o.probe_updates > 0 ? o.probe_updates : 5, modes);
  }
  if (parsed("smoke")) return run_smoke(o.common);
  if (parsed("keys")) return o.keys_markdown ? run_keys_markdown(o.keys_from) : run_keys(o.common);
  if (parsed("export")) {
    o.export_request.weights = o.weights;
    if (!o.export_output.empty()) o.export_request.output = o.export_output;
    read_export_arguments(commands_.at("export")->remaining(), o.export_request);
    return run_export(o.export_request);
  }
  if (parsed("help")) {
    // app_.help() would print the help of the subcommand just parsed, `help` itself.
    std::printf("%s", app_.get_formatter()->make_help(&app_, "trainer", CLI::AppFormatMode::Normal).c_str());
    return 0;
  }
  if (parsed("version")) return run_version();
  if (parsed("checks")) return run_checks();
  if (parsed("copy-cfg")) return run_copy_cfg();
  if (parsed("cfg")) return run_cfg();
  if (parsed("settings")) return run_settings(normalize_overrides(o.settings_arguments));
  if (parsed("data digits")) return run_data_digits(o.digits_options);
  if (parsed("data synth-detect")) return run_data_synth_detect(o.detect_options, o.detect_force);
  if (parsed("data printed")) {
    o.printed_options.script = o.script == "chinese" ? PrintedScript::chinese : PrintedScript::latin;
    return run_data_printed(o.printed_options);
  }
  throw std::logic_error("the parsed command has no handler");
}

}  // namespace trainer::app
