// Catch2's main lives alone in this file: catch.hpp's implementation is slow to compile.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "util/onednn_check.h"

int main(int argc, char** argv) {
  // The tests train convolutions in this process, so they need what trainer's main ensures.
  trainer::use_correct_onednn(argv);
  return Catch::Session().run(argc, argv);
}
