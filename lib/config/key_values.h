// Typed parsing and printing of one recipe value, shared by the rows of the key table. Every
// parse error is a UserError naming the key, where it was written and what was expected.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "config/recipe_keys.h"

namespace trainer {

[[noreturn]] void fail_value(const std::string& key, const RecipeValue& value, const std::string& expected);

inline constexpr int64_t kNoUpperBound = std::numeric_limits<int64_t>::max();

// Which ends of a number range are accepted.
struct RangeEnds {
  bool min_inclusive = true;
  bool max_inclusive = true;
};

int64_t parse_int(const std::string& key, const RecipeValue& value, int64_t min, int64_t max);
double parse_double(const std::string& key, const RecipeValue& value, double min, double max, RangeEnds ends = {});
bool parse_bool(const std::string& key, const RecipeValue& value);
// none (any case) or null is "" where allow_empty, else an error.
std::string parse_string(const std::string& key, const RecipeValue& value, bool allow_empty);
// Comma-separated items, each trimmed; "none" or an empty value is the empty list.
std::vector<std::string> split_items(const RecipeValue& value);
// The same, or EasyOCR's '-'-separated items ('MJ-ST', '0.5-0.5') in a value without a comma.
std::vector<std::string> split_list_items(const RecipeValue& value);
bool is_auto(const RecipeValue& value);
bool is_none(const RecipeValue& value);

// How the docs and help print a range: "≥ 1", "0–64", "[0, 1)".
std::string int_range_text(int64_t min, int64_t max);
std::string double_range_text(double min, double max, RangeEnds ends);

std::string show_double(double value);
std::string show_items(const std::vector<std::string>& items);
std::string show_items(const std::vector<double>& items);
std::string show_items(const std::vector<int64_t>& items);

}  // namespace trainer
