// Did-you-mean suggestions must catch common typos and stay quiet for unrelated words.
#include <catch2/catch.hpp>

#include "util/text.h"

using namespace trainer;

TEST_CASE("edit distance counts insertions, deletions and substitutions", "[util]") {
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("batch", "batch") == 0);
  CHECK(edit_distance("bacth", "batch") == 2);
  CHECK(edit_distance("epoch", "epochs") == 1);
}

TEST_CASE("closest_match suggests near keys only", "[util]") {
  const std::vector<std::string> keys{"epochs", "batch", "accumulate", "lr0"};
  CHECK(closest_match("epoch", keys) == "epochs");
  CHECK(closest_match("acumulate", keys) == "accumulate");
  CHECK(closest_match("Batch", keys) == "batch");
  CHECK(closest_match("zzzzzzzz", keys).empty());
}
