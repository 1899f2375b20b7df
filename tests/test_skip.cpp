#include "test_skip.h"

#include <catch2/catch.hpp>
#include <torch/cuda.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace trainer::testing {

void skip_test(const std::string& reason) {
  const char* code = std::getenv("TRAINER_TEST_SKIP_CODE");
  if (code == nullptr) FAIL("cannot run here: " << reason << " (CTest reports this case as skipped)");
  std::cout << "SKIPPED: " << reason << std::endl;
  std::fflush(nullptr);
  std::_Exit(std::atoi(code));
}

void require_cuda_device() {
  INFO("a [gpu] test needs a visible CUDA device; this machine has none (or this build has no CUDA)");
  REQUIRE(torch::cuda::is_available());
}

}  // namespace trainer::testing
