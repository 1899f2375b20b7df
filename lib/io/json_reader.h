// JSON read from files someone else wrote (a safetensors header, a cached decision), through
// nlohmann-json with member order kept and 64-bit integers exact, plus the one check it leaves to
// us: a duplicate object key is an error, since readers differ on which copy they keep.
// nlohmann/json.hpp is heavy: include this only in the .cpp files that read or write JSON.
#pragma once
#include <stdexcept>
#include <string_view>

#include <nlohmann/json.hpp>

namespace trainer {

using Json = nlohmann::ordered_json;

// A syntax error or a duplicate key; the message gives the byte offset or the key. Callers add
// the file name.
class JsonError : public std::runtime_error {
 public:
  explicit JsonError(const std::string& message) : std::runtime_error(message) {}
};

// Exactly one JSON value (surrounding whitespace allowed), or JsonError.
Json parse_json(std::string_view text);

}  // namespace trainer
