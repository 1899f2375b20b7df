// The subcommands and their options (CLI11), and the call of the command that was parsed.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "commands.h"
#include "export_arguments.h"

namespace trainer::app {

// What the options of every subcommand are parsed into.
struct ParsedOptions {
  CommonOptions common;
  std::string weights;
  std::vector<std::string> sources;
  int64_t top_k = 5;
  int digits = 3;
  int64_t probe_updates = 0;
  std::vector<std::string> probe_modes;
  bool keys_markdown = false;
  std::string keys_from;
  ExportRequest export_request;
  std::string export_output;
  SynthDigitsOptions digits_options;
  SynthPrintedOptions printed_options;
  std::string script = "latin";
  SynthDetectOptions detect_options;
  bool detect_force = false;
  std::vector<std::string> settings_arguments;
};

class CommandLine {
 public:
  CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;
  // Throws CLI::ParseError.
  void parse(std::vector<std::string> arguments);
  // Runs the parsed command; throws UserError for bad input.
  int run();
  CLI::App& app() { return app_; }

 private:
  void add_model_commands();
  void add_export();
  void add_data();
  void add_small_commands();
  void take_overrides();

  CLI::App app_{"trainer: train vision models from YAML recipes on LibTorch"};
  ParsedOptions options_;
  std::map<std::string, CLI::App*> commands_;
  std::vector<CLI::App*> recipe_commands_;  // those that take a recipe and key=value overrides
};

}  // namespace trainer::app
