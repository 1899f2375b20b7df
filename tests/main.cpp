// Catch2's main lives alone in this file: catch.hpp's implementation is slow to compile.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
