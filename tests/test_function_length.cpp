// No function under lib/ or apps/ runs over 80 lines (issue 41): a long function is split into
// named steps. The key and spelling tables are exempt, being data written as code. Reading the
// sources keeps the limit true as the code grows; the reader is a heuristic, not a C++ parser, but
// it is enough for code formatted by the project's clang-format.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_helpers.h"

namespace {

namespace fs = std::filesystem;

constexpr int kMaxLines = 80;

// Their table functions list one key or spelling a line; splitting them would only scatter the table.
const std::set<std::string> kExempt = {"lib/config/recipe_keys.cpp", "lib/config/foreign_keys.cpp",
                                       "lib/config/timm_flags.cpp"};

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A ' after a number's digits is a digit separator (1'000), not the start of a character literal.
bool digit_separator(const std::string& text, size_t quote) {
  size_t start = quote;
  while (start > 0 && (is_word(text[start - 1]) || text[start - 1] == '\'' || text[start - 1] == '.')) --start;
  return start < quote && std::isdigit(static_cast<unsigned char>(text[start]));
}

// The text with comments, string and character literals and preprocessor lines blanked out, so that
// the braces left are the code's; newlines stay, to keep line numbers.
std::string code_only(const std::string& text) {
  std::string out = text;
  auto blank = [&](size_t from, size_t to) {
    for (size_t i = from; i < to && i < out.size(); ++i) {
      if (out[i] != '\n') out[i] = ' ';
    }
  };
  size_t i = 0;
  bool line_start = true;
  while (i < text.size()) {
    const char c = text[i];
    if (line_start && c == '#') {  // a directive, with its backslash-continued lines
      size_t end = i;
      while (end < text.size() && !(text[end] == '\n' && text[end - 1] != '\\')) ++end;
      blank(i, end);
      i = end;
      continue;
    }
    if (c == '\n') line_start = true;
    else if (!std::isspace(static_cast<unsigned char>(c))) line_start = false;
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      const size_t end = text.find('\n', i);
      blank(i, end == std::string::npos ? text.size() : end);
      i = end == std::string::npos ? text.size() : end;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const size_t end = text.find("*/", i + 2);
      const size_t stop = end == std::string::npos ? text.size() : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c == '"' && i > 0 && text[i - 1] == 'R' && (i < 2 || !is_word(text[i - 2]) || text[i - 2] == '8' ||
                                                            text[i - 2] == 'u' || text[i - 2] == 'U' ||
                                                            text[i - 2] == 'L')) {
      const size_t open = text.find('(', i);
      const std::string close = ")" + text.substr(i + 1, open - i - 1) + "\"";
      const size_t end = text.find(close, open);
      const size_t stop = end == std::string::npos ? text.size() : end + close.size();
      blank(i, stop);
      i = stop;
    } else if (c == '"' || (c == '\'' && !digit_separator(text, i))) {
      size_t end = i + 1;
      while (end < text.size() && text[end] != c && text[end] != '\n') end += text[end] == '\\' ? 2 : 1;
      blank(i, end + 1);
      i = end + 1;
    } else {
      ++i;
    }
  }
  return out;
}

size_t matching_close(const std::string& code, size_t open) {
  int depth = 0;
  for (size_t i = open; i < code.size(); ++i) {
    if (code[i] == '{') ++depth;
    if (code[i] == '}' && --depth == 0) return i;
  }
  return code.size() - 1;
}

int line_of(const std::string& code, size_t position) {
  return 1 + static_cast<int>(std::count(code.begin(), code.begin() + static_cast<long>(position), '\n'));
}

// What a brace at namespace or class scope opens, judged by the text before it (its "head").
enum class Opens { scope, function, other };

Opens classify(std::string head) {
  head = std::regex_replace(head, std::regex(R"(\boperator\s*[^\s(]*\s*\()"), "operator(");
  int parens = 0;
  for (char c : head) {
    if (c == '(') ++parens;
    if (c == ')') --parens;
    if (c == '=' && parens == 0) return Opens::other;  // an initializer, a lambda held in a variable among them
  }
  std::smatch keyword;
  if (std::regex_search(head, keyword, std::regex(R"(\b(namespace|class|struct|union|enum|extern)\b)"))) {
    const size_t paren = head.find('(');
    if (paren == std::string::npos || static_cast<size_t>(keyword.position(0)) < paren) return Opens::scope;
  }
  return head.find('(') == std::string::npos ? Opens::other : Opens::function;
}

// The qualified name before the head's first parenthesis at template depth 0.
std::string name_of(const std::string& head) {
  int angles = 0;
  size_t paren = std::string::npos;
  for (size_t i = 0; i < head.size(); ++i) {
    if (head[i] == '<') ++angles;
    if (head[i] == '>' && angles > 0) --angles;
    if (head[i] == '(' && angles == 0) {
      paren = i;
      break;
    }
  }
  if (paren == std::string::npos) paren = head.find('(');
  size_t start = paren;
  while (start > 0 && (is_word(head[start - 1]) || head[start - 1] == ':' || head[start - 1] == '~')) --start;
  return head.substr(start, paren - start);
}

struct Function {
  std::string name;
  int line;
  int length;
};

// After a constructor's ')' and ':' come the member initializers, whose braces (member_{value})
// follow a name; the body's brace follows ')' or '}'.
bool member_initializer(const std::string& head, const std::string& code, size_t brace) {
  const size_t close = head.rfind(')');
  if (close == std::string::npos) return false;
  const std::string tail = head.substr(close);
  if (!std::regex_search(tail, std::regex(R"((^|[^:]):([^:]|$))"))) return false;
  size_t before = brace;
  while (before > 0 && std::isspace(static_cast<unsigned char>(code[before - 1]))) --before;
  return before > 0 && (is_word(code[before - 1]) || code[before - 1] == '>');
}

// Every function defined in one file, its length counted from the body's opening brace to its close.
std::vector<Function> functions_in(const std::string& code) {
  std::vector<Function> found;
  size_t head_start = 0;
  for (size_t i = 0; i < code.size(); ++i) {
    const char c = code[i];
    if (c == ';' || c == '}') {
      head_start = i + 1;
    } else if (c == '{') {
      const std::string head = code.substr(head_start, i - head_start);
      if (std::count(head.begin(), head.end(), '(') > std::count(head.begin(), head.end(), ')')) {
        i = matching_close(code, i);  // a brace inside parentheses: a default argument's {} or a lambda
        continue;
      }
      const Opens opens = classify(head);
      if (opens == Opens::scope) {
        head_start = i + 1;
        continue;
      }
      const size_t close = matching_close(code, i);
      if (opens == Opens::function && member_initializer(head, code, i)) {
        i = close;  // the head goes on to the body's brace
        continue;
      }
      if (opens == Opens::function) {
        found.push_back({name_of(head), line_of(code, i), line_of(code, close) - line_of(code, i) + 1});
      }
      i = close;
      head_start = close + 1;
    }
  }
  return found;
}

std::string read(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("the function reader finds bodies, skipping literals, comments and initializers", "[style]") {
  const std::string code = R"cpp(
#include <x>
namespace a {
const std::vector<int> table = {1, 2, 3};
struct S : Base {
  S(int x) : x_{x}, y_(2) {
    f("}", '{');  // }
  }
  int x_{0};
};
int S::twice(int v, std::vector<int> w = {}) const {
  auto l = [](int w) { return w; };
  /* } */
  return 2'000 + l(v) + R"x(})x"[0];
}
}  // namespace a
)cpp";
  const std::vector<Function> found = functions_in(code_only(code));
  REQUIRE(found.size() == 2);
  CHECK(found[0].name == "S");
  CHECK(found[0].line == 6);
  CHECK(found[0].length == 3);
  CHECK(found[1].name == "S::twice");
  CHECK(found[1].line == 11);
  CHECK(found[1].length == 5);
}

TEST_CASE("no function under lib/ and apps/ runs over 80 lines", "[style]") {
  const fs::path root = TRAINER_SOURCE_DIR;
  std::ostringstream long_ones;
  size_t functions = 0;
  for (const fs::path& source : trainer::testing::library_and_app_sources()) {
    const std::string relative = source.generic_string();
    if (kExempt.count(relative) != 0) continue;
    for (const Function& function : functions_in(code_only(read(root / source)))) {
      ++functions;
      if (function.length > kMaxLines) {
        long_ones << "\n" << relative << ":" << function.line << " " << function.name << " " << function.length;
      }
    }
  }
  CHECK(functions > 500);
  INFO("functions over " << kMaxLines << " lines (file:line name length):" << long_ones.str());
  CHECK(long_ones.str().empty());
}
