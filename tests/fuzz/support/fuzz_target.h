// What every fuzz target (tests/fuzz/*.cpp) shares. The readers take paths, as the trainer's
// commands hand them files, so each input is written to a file in a private scratch folder first.
// A reader may refuse an input only with a UserError (the clear error naming the file); anything
// else escaping it (another exception, a crash, a sanitizer report, a hang, a memory blow-up) is a
// finding. libFuzzer builds these with clang (scripts/fuzz); CTest replays each corpus through the
// same function with the normal build (support/replay_main.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "util/error.h"

namespace trainer::fuzz {

// Writes `bytes` to `name` (relative) in the scratch folder (created under $TMPDIR by the first
// call, removed at exit) and returns its path. The first call also silences the readers' log
// lines, which would cost more than the parsing.
std::string scratch_file(const std::string& name, std::string_view bytes);

// The fuzzer's bytes as a string_view.
inline std::string_view bytes_of(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Runs `read`; a UserError is the expected refusal of a bad input, so it is swallowed.
template <typename Read>
void read_or_refuse(Read read) {
  try {
    read();
  } catch (const UserError&) {
  }
}

}  // namespace trainer::fuzz
