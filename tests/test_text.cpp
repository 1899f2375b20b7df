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

TEST_CASE("join_first shows the first few and counts the rest", "[util]") {
  CHECK(join_first({"a", "b"}, ", ", 3) == "a, b");
  CHECK(join_first({"a", "b", "c"}, ", ", 3) == "a, b, c");
  CHECK(join_first({"a", "b", "c", "d", "e"}, "; ", 2) == "a; b and 3 more");
}
