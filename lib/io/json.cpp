#include "io/json.h"

#include <cmath>
#include <cstdio>
#include <set>

namespace trainer {
namespace {

// Deep nesting only comes from hostile input; recursion depth stays bounded.
constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Json parse_document() {
    skip_space();
    Json value = parse_value(0);
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the JSON value");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw JsonError("invalid JSON at byte " + std::to_string(pos_) + ": " + what);
  }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }

  void skip_space() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++pos_;
  }

  void expect(char wanted) {
    if (peek() != wanted || at_end()) fail(std::string("expected '") + wanted + "'");
    ++pos_;
  }

  void expect_word(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) fail("unknown literal");
    pos_ += word.size();
  }

  Json parse_value(int depth) {
    if (depth > kMaxDepth) fail("nested too deeply");
    if (at_end()) fail("unexpected end of text");
    Json value;
    switch (peek()) {
      case '{': return parse_object(depth);
      case '[': return parse_array(depth);
      case '"': return Json::string(parse_string());
      case 't': expect_word("true"); value.kind = Json::Kind::boolean; value.boolean = true; return value;
      case 'f': expect_word("false"); value.kind = Json::Kind::boolean; return value;
      case 'n': expect_word("null"); return value;
      default: return parse_number();
    }
  }

  Json parse_object(int depth) {
    expect('{');
    Json object = Json::object();
    std::set<std::string> keys;
    skip_space();
    if (peek() == '}') {
      ++pos_;
      return object;
    }
    while (true) {
      skip_space();
      if (peek() != '"') fail("expected a string key");
      std::string key = parse_string();
      if (!keys.insert(key).second) fail("duplicate key \"" + key + "\"");
      skip_space();
      expect(':');
      skip_space();
      Json member = parse_value(depth + 1);
      object.members.emplace_back(std::move(key), std::move(member));
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect('}');
      return object;
    }
  }

  Json parse_array(int depth) {
    expect('[');
    Json array = Json::array();
    skip_space();
    if (peek() == ']') {
      ++pos_;
      return array;
    }
    while (true) {
      skip_space();
      array.items.push_back(parse_value(depth + 1));
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect(']');
      return array;
    }
  }

  // Grammar check only; the literal is kept as text.
  Json parse_number() {
    const size_t start = pos_;
    const auto digits = [&] {
      const size_t first = pos_;
      while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
      return pos_ - first;
    };
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (digits() == 0) {
      fail("expected a value");
    }
    if (peek() == '.') {
      ++pos_;
      if (digits() == 0) fail("expected digits after '.'");
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (digits() == 0) fail("expected exponent digits");
    }
    Json value;
    value.kind = Json::Kind::number;
    value.text = std::string(text_.substr(start, pos_ - start));
    return value;
  }

  uint32_t parse_hex4() {
    if (pos_ + 4 > text_.size()) fail("truncated \\u escape");
    uint32_t code = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[pos_++];
      code <<= 4;
      if (c >= '0' && c <= '9') code |= uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f') code |= uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') code |= uint32_t(c - 'A' + 10);
      else fail("bad hex digit in \\u escape");
    }
    return code;
  }

  static void append_utf8(std::string& out, uint32_t code) {
    if (code < 0x80) {
      out += char(code);
    } else if (code < 0x800) {
      out += char(0xC0 | (code >> 6));
      out += char(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += char(0xE0 | (code >> 12));
      out += char(0x80 | ((code >> 6) & 0x3F));
      out += char(0x80 | (code & 0x3F));
    } else {
      out += char(0xF0 | (code >> 18));
      out += char(0x80 | ((code >> 12) & 0x3F));
      out += char(0x80 | ((code >> 6) & 0x3F));
      out += char(0x80 | (code & 0x3F));
    }
  }

  std::string parse_string() {
    expect('"');
    std::string out;
    while (true) {
      if (at_end()) fail("unterminated string");
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_end()) fail("unterminated string");
      switch (text_[pos_++]) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t code = parse_hex4();
          if (code >= 0xD800 && code < 0xDC00) {  // a high surrogate: its pair must follow
            if (text_.substr(pos_, 2) != "\\u") fail("unpaired surrogate in \\u escape");
            pos_ += 2;
            const uint32_t low = parse_hex4();
            if (low < 0xDC00 || low >= 0xE000) fail("unpaired surrogate in \\u escape");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          } else if (code >= 0xDC00 && code < 0xE000) {
            fail("unpaired surrogate in \\u escape");
          }
          append_utf8(out, code);
          break;
        }
        default: fail("unknown escape in a string");
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

void quote(const std::string& text, std::string& out) {
  out += '"';
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escape[8];
          std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(c));
          out += escape;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void dump(const Json& value, std::string& out) {
  switch (value.kind) {
    case Json::Kind::null: out += "null"; break;
    case Json::Kind::boolean: out += value.boolean ? "true" : "false"; break;
    case Json::Kind::number: out += value.text; break;
    case Json::Kind::string: quote(value.text, out); break;
    case Json::Kind::array:
      out += '[';
      for (size_t i = 0; i < value.items.size(); ++i) {
        if (i) out += ',';
        dump(value.items[i], out);
      }
      out += ']';
      break;
    case Json::Kind::object:
      out += '{';
      for (size_t i = 0; i < value.members.size(); ++i) {
        if (i) out += ',';
        quote(value.members[i].first, out);
        out += ':';
        dump(value.members[i].second, out);
      }
      out += '}';
      break;
  }
}

}  // namespace

Json Json::string(std::string value) {
  Json json;
  json.kind = Kind::string;
  json.text = std::move(value);
  return json;
}

Json Json::number(int64_t value) {
  Json json;
  json.kind = Kind::number;
  json.text = std::to_string(value);
  return json;
}

Json Json::number(uint64_t value) {
  Json json;
  json.kind = Kind::number;
  json.text = std::to_string(value);
  return json;
}

Json Json::number(double value) {
  TORCH_INTERNAL_ASSERT(std::isfinite(value), "JSON has no literal for ", value);
  Json json;
  json.kind = Kind::number;
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", value);
  json.text = text;
  return json;
}

Json Json::array(std::vector<Json> items) {
  Json json;
  json.kind = Kind::array;
  json.items = std::move(items);
  return json;
}

Json Json::object(std::vector<std::pair<std::string, Json>> members) {
  Json json;
  json.kind = Kind::object;
  json.members = std::move(members);
  return json;
}

const Json* Json::find(const std::string& key) const {
  for (const auto& [name, member] : members) {
    if (name == key) return &member;
  }
  return nullptr;
}

bool Json::to_uint64(uint64_t& out) const {
  if (kind != Kind::number || text.empty()) return false;
  uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t digit = uint64_t(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return false;
    value = value * 10 + digit;
  }
  out = value;
  return true;
}

Json parse_json(std::string_view text) { return Parser(text).parse_document(); }

std::string dump_json(const Json& value) {
  std::string out;
  dump(value, out);
  return out;
}

}  // namespace trainer
