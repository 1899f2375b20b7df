#include <catch2/catch.hpp>

#include <malloc.h>

#include <cstdlib>
#include <cstring>

#include "test_helpers.h"
#include "test_skip.h"
#include "util/host_allocator.h"

namespace {
char* volatile escaped = nullptr;
}

TEST_CASE("freed host memory stays in the heap: a 48 MB block is not mapped on its own", "[memory]") {
#if !TRAINER_TEST_GLIBC_HEAP
  trainer::testing::skip_test("this heap is not glibc's (AddressSanitizer replaces it): nothing to check");
#else
  REQUIRE(trainer::keep_freed_host_memory());
  CHECK(trainer::freed_host_memory_kept());
  // glibc's default would map this block (above its 32 MB ceiling) and unmap it on free.
  constexpr size_t kBytes = size_t{48} << 20;
  const size_t mapped_before = mallinfo2().hblkhd;
  char* block = static_cast<char*>(std::malloc(kBytes));
  REQUIRE(block != nullptr);
  std::memset(block, 1, kBytes);
  escaped = block;  // the compiler may not drop the allocation
  const size_t mapped_during = mallinfo2().hblkhd;
  std::free(block);
  CHECK(mapped_during == mapped_before);
#endif
}
