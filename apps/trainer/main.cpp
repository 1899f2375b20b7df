// trainer: train vision models from YAML recipes on LibTorch.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <c10/util/Exception.h>

#include <cstdio>
#include <string>
#include <vector>

#include "command_line.h"
#include "util/error.h"
#include "util/host_allocator.h"
#include "util/onednn_check.h"

namespace {

// Exit codes: 0 success, 1 a check failed (smoke, checks), 2 a user error (the command line, a
// recipe, data, files), 3 an internal error (a bug: please report it).
constexpr int kUserError = 2;
constexpr int kInternalError = 3;

// CLI11 prints its own message (and --help its help); every usage error exits 2, not CLI11's code.
int exit_code_of(CLI::App& app, const CLI::ParseError& error) {
  const int code = app.exit(error);
  return code == 0 ? 0 : kUserError;
}

}  // namespace

int main(int argc, char** argv) {
  trainer::keep_freed_host_memory();
  // Log lines (info, warnings) go to stderr, so stdout holds only what the command produces:
  // progress and metrics, or one line per image from `predict`, ready for a pipe.
  spdlog::set_default_logger(
      std::make_shared<spdlog::logger>("", std::make_shared<spdlog::sinks::stderr_color_sink_mt>()));
  trainer::app::CommandLine command_line;
  try {
    command_line.parse(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const CLI::ParseError& error) {
    return exit_code_of(command_line.app(), error);
  } catch (const trainer::UserError& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return kUserError;
  }
  try {
    trainer::use_correct_convolutions();
    return command_line.run();
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
}
