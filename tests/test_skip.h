// Test cases that cannot run on this machine end in a way CTest counts, never as a pass.
#pragma once

#include <string>

namespace trainer::testing {

// Ends the current test case as skipped. Under CTest, which sets TRAINER_TEST_SKIP_CODE and counts
// that exit code as a skip (tests/CMakeLists.txt; CTest runs one case per process), it prints why
// and exits with that code. Run any other way (the binary by hand) the case fails, naming why:
// Catch2 v2 has no skip of its own, and a case that returns early would read as a pass.
[[noreturn]] void skip_test(const std::string& reason);

// The [gpu] cases start with this: no visible CUDA device fails them, so `ctest -L gpu` on a
// machine without one is red, not green. They carry the hidden tag [.gpu], so a plain run of the
// binary (no tag given) leaves them out.
void require_cuda_device();

}  // namespace trainer::testing
