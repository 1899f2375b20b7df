// A minimal JSON value, reader and writer: enough for small headers such as safetensors', so
// that no JSON library joins the dependencies. Objects keep their members in file order, and
// numbers keep their literal text, so 64-bit offsets never pass through a double.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer {

// A syntax error; the message gives the byte offset. Callers add the file name.
class JsonError : public std::runtime_error {
 public:
  explicit JsonError(const std::string& message) : std::runtime_error(message) {}
};

struct Json {
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  bool boolean = false;
  std::string text;                                   ///< a string's value or a number's literal
  std::vector<Json> items;                            ///< an array's elements
  std::vector<std::pair<std::string, Json>> members;  ///< an object's members, in order

  static Json string(std::string value);
  static Json number(int64_t value);
  static Json number(uint64_t value);
  // Finite values only; written with up to 6 significant digits (coordinates, scores).
  static Json number(double value);
  static Json array(std::vector<Json> items = {});
  static Json object(std::vector<std::pair<std::string, Json>> members = {});

  bool is(Kind wanted) const { return kind == wanted; }
  // The member named `key`, or nullptr (also when this is not an object).
  const Json* find(const std::string& key) const;
  // True and `out` set when this is a number written as a plain non-negative integer that fits
  // 64 bits (no sign, fraction or exponent); false otherwise.
  bool to_uint64(uint64_t& out) const;
};

// Parses exactly one JSON value (surrounding whitespace allowed). Duplicate object keys are an
// error: which one a reader keeps differs between libraries, so a file having them is ambiguous.
Json parse_json(std::string_view text);

// Compact JSON text (no spaces); strings are escaped, other UTF-8 passes through unchanged.
std::string dump_json(const Json& value);

}  // namespace trainer
