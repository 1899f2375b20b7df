// Whole-file replacement: the new content or the old, never a mix, and failures name the file.
#include <catch2/catch.hpp>

#include "test_helpers.h"
#include "util/atomic_file.h"
#include "util/error.h"

using namespace trainer;
using trainer::testing::TempDir;

namespace {

size_t entries_in(const std::filesystem::path& folder) {
  size_t count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(folder)) ++count;
  return count;
}

}  // namespace

TEST_CASE("write_file_atomically replaces the whole file or leaves the old one", "[io]") {
  TempDir dir("atomic-file");
  const auto path = dir / "results.csv";
  write_file_atomically(path, "epoch\n1\n");
  CHECK(trainer::testing::read_text(path) == "epoch\n1\n");
  const std::string longer(64 * 1024, 'x');
  write_file_atomically(path, longer);
  CHECK(trainer::testing::read_text(path) == longer);

  SECTION("a full disk") {
    {
      const trainer::testing::FileSizeLimit full_disk(1024);
      CHECK_THROWS_WITH(write_file_atomically(path, std::string(4096, 'y')),
                        Catch::Contains(path.string()) && Catch::Contains("File too large"));
    }
    CHECK(trainer::testing::read_text(path) == longer);
  }
  SECTION("a rename that cannot happen") {
    std::filesystem::create_directories(dir / "occupied" / "inside");
    CHECK_THROWS_AS(write_file_atomically(dir / "occupied", "z"), UserError);
    CHECK_THROWS_WITH(write_file_atomically(dir / "occupied", "z"), Catch::Contains("cannot rename"));
  }
  SECTION("a writer that fails halfway") {
    const auto half_written = [](const std::filesystem::path& temporary) {
      trainer::testing::write_text(temporary, "epo");
      throw UserError("no");
    };
    CHECK_THROWS_WITH(replace_file_atomically(path, half_written), "no");
    CHECK(trainer::testing::read_text(path) == longer);
  }
  CHECK(entries_in(dir.path()) == (std::filesystem::exists(dir / "occupied") ? 2 : 1));  // no temporaries
}
