// Catch2's main lives alone in this file: catch.hpp's implementation is slow to compile.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "util/onednn_check.h"

int main(int argc, char** argv) {
  // Log lines go to stderr, as trainer's do, so CTest's discovery (--list-test-names-only) reads
  // test names alone from stdout.
  spdlog::set_default_logger(
      std::make_shared<spdlog::logger>("", std::make_shared<spdlog::sinks::stderr_color_sink_mt>()));
  // The tests train convolutions in this process, so they need what trainer's main ensures.
  trainer::use_correct_convolutions();
  return Catch::Session().run(argc, argv);
}
