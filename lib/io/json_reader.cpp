#include "io/json_reader.h"

#include <set>
#include <string>
#include <vector>

namespace trainer {
namespace {

// A first pass over the text that builds nothing: it stops at a syntax error or at the second
// occurrence of a key in one object, which nlohmann's parser would silently keep the last of.
class DuplicateKeyCheck : public nlohmann::json_sax<Json> {
 public:
  std::string problem;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    keys_.emplace_back();
    return true;
  }
  bool key(string_t& name) override {
    if (keys_.back().insert(name).second) return true;
    problem = "duplicate key \"" + name + "\"";
    return false;
  }
  bool end_object() override {
    keys_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) override {
    problem = error.what();
    return false;
  }

 private:
  std::vector<std::set<std::string>> keys_;
};

}  // namespace

Json parse_json(std::string_view text) {
  DuplicateKeyCheck check;
  if (!Json::sax_parse(text, &check)) throw JsonError(check.problem);
  return Json::parse(text);
}

}  // namespace trainer
