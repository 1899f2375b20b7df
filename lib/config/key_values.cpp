#include "config/key_values.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "util/error.h"
#include "util/text.h"

namespace trainer {

void fail_value(const std::string& key, const RecipeValue& value, const std::string& expected) {
  throw UserError(value.where + ": key '" + key + "' expects " + expected + ", got '" +
                  (value.is_null ? std::string("none") : value.text) + "'");
}

std::string int_range_text(int64_t min, int64_t max) {
  if (max == kNoUpperBound) return "≥ " + std::to_string(min);
  return std::to_string(min) + "–" + std::to_string(max);
}

std::string double_range_text(double min, double max, RangeEnds ends) {
  std::ostringstream out;
  out << (ends.min_inclusive ? "[" : "(") << min << ", " << max << (ends.max_inclusive ? "]" : ")");
  return out.str();
}

int64_t parse_int(const std::string& key, const RecipeValue& value, int64_t min, int64_t max) {
  const std::string expected = "an integer in [" + std::to_string(min) + ", " +
                               (max == kNoUpperBound ? std::string("inf") : std::to_string(max)) + "]";
  if (value.is_null || value.text.empty()) fail_value(key, value, expected);
  errno = 0;
  char* end = nullptr;
  const long long parsed = std::strtoll(value.text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || parsed < min || parsed > max) fail_value(key, value, expected);
  return parsed;
}

double parse_double(const std::string& key, const RecipeValue& value, double min, double max, RangeEnds ends) {
  const std::string expected = "a number in " + double_range_text(min, max, ends);
  if (value.is_null || value.text.empty()) fail_value(key, value, expected);
  // Python's booleans are the numbers 0 and 1, and Ultralytics' number checks take them as such
  // (`dropout: false` in its args.yaml files is 0).
  const std::string lowered = to_lower(value.text);
  if (lowered == "false" || lowered == "true") {
    return parse_double(key, {lowered == "true" ? "1" : "0", false, value.where}, min, max, ends);
  }
  errno = 0;
  char* end = nullptr;
  const double parsed = std::strtod(value.text.c_str(), &end);
  const bool in_range =
      (ends.min_inclusive ? parsed >= min : parsed > min) && (ends.max_inclusive ? parsed <= max : parsed < max);
  if (errno != 0 || *end != '\0' || !std::isfinite(parsed) || !in_range) fail_value(key, value, expected);
  return parsed;
}

bool parse_bool(const std::string& key, const RecipeValue& value) {
  const std::string lowered = to_lower(value.text);
  if (!value.is_null && lowered == "true") return true;
  if (!value.is_null && lowered == "false") return false;
  fail_value(key, value, "true or false");
}

bool is_auto(const RecipeValue& value) { return !value.is_null && to_lower(value.text) == "auto"; }

bool is_none(const RecipeValue& value) { return value.is_null || to_lower(value.text) == "none"; }

std::string parse_string(const std::string& key, const RecipeValue& value, bool allow_empty) {
  if (is_none(value)) {
    if (allow_empty) return "";
    fail_value(key, value, "a non-empty string");
  }
  if (value.text.empty() && !allow_empty) fail_value(key, value, "a non-empty string");
  return value.text;
}

namespace {

std::vector<std::string> split_at(const RecipeValue& value, char separator) {
  std::vector<std::string> items;
  if (is_none(value) || value.text.empty()) return items;
  size_t start = 0;
  while (true) {
    const size_t end = value.text.find(separator, start);
    items.push_back(trim(value.text.substr(start, end == std::string::npos ? std::string::npos : end - start)));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return items;
}

}  // namespace

std::vector<std::string> split_items(const RecipeValue& value) { return split_at(value, ','); }

std::vector<std::string> split_list_items(const RecipeValue& value) {
  const bool easyocr_list = !value.is_sequence && value.text.find(',') == std::string::npos;
  return split_at(value, easyocr_list ? '-' : ',');
}

std::string show_double(double value) {
  std::ostringstream out;
  out.precision(std::numeric_limits<double>::max_digits10 - 2);
  out << value;
  return out.str();
}

namespace {

template <typename T>
std::string join_items(const std::vector<T>& items) {
  if (items.empty()) return "none";
  std::ostringstream out;
  out.precision(std::numeric_limits<double>::max_digits10 - 2);
  for (size_t i = 0; i < items.size(); ++i) out << (i ? "," : "") << items[i];
  return out.str();
}

}  // namespace

std::string show_items(const std::vector<std::string>& items) { return join_items(items); }
std::string show_items(const std::vector<double>& items) { return join_items(items); }
std::string show_items(const std::vector<int64_t>& items) { return join_items(items); }

}  // namespace trainer
