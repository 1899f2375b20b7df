// Recognition metrics on pairs whose values are worked out by hand, and UTF-8 handling.
#include <catch2/catch.hpp>

#include "tasks/text_metrics.h"
#include "util/error.h"
#include "util/text.h"
#include "util/utf8.h"

using namespace trainer;

TEST_CASE("edit distance on recognised text counts code points", "[ocr][metrics]") {
  CHECK(edit_distance(U"", U"") == 0);
  CHECK(edit_distance(U"abc", U"") == 3);
  CHECK(edit_distance(U"", U"ab") == 2);
  CHECK(edit_distance(U"kitten", U"sitting") == 3);  // k->s, e->i, +g
  CHECK(edit_distance(U"flaw", U"lawn") == 2);        // -f, +n
  CHECK(edit_distance(U"12345", U"12345") == 0);
  CHECK(edit_distance(U"中文字", U"中字") == 1);       // per code point, not per byte
}

TEST_CASE("accuracy, norm_ED and CER follow EasyOCR's definitions", "[ocr][metrics]") {
  TextScores scores;
  scores.add(U"hello", U"hello");  // exact: norm_ED 1, 0 edits
  scores.add(U"helo", U"hello");   // 1 edit, max length 5: norm_ED 0.8
  scores.add(U"abcdef", U"abc");   // 3 edits, max length 6: norm_ED 0.5
  scores.add(U"", U"xy");          // empty prediction: norm_ED 0, 2 edits
  CHECK(scores.samples() == 4);
  CHECK(scores.accuracy() == Approx(0.25));
  CHECK(scores.norm_ed() == Approx((1.0 + 0.8 + 0.5 + 0.0) / 4));
  CHECK(scores.cer() == Approx((0.0 + 1 + 3 + 2) / (5 + 5 + 3 + 2)));
  CHECK(TextScores().accuracy() == 0.0);
}

TEST_CASE("UTF-8 decodes to code points and malformed text names its source", "[ocr][utf8]") {
  const std::string text = "a€中\xF0\x9F\x98\x80";
  const std::u32string points = decode_utf8(text, "labels.csv:3");
  CHECK(points == std::u32string{U'a', U'€', U'中', char32_t{0x1F600}});
  CHECK(encode_utf8(points) == text);
  CHECK_THROWS_WITH(decode_utf8("ab\xC3", "labels.csv:7"), Catch::Contains("labels.csv:7") && Catch::Contains("truncated"));
  CHECK_THROWS_WITH(decode_utf8("\xC0\xAF", "x"), Catch::Contains("invalid UTF-8"));  // overlong '/'
  CHECK_THROWS_AS(decode_utf8("\xED\xA0\x80", "x"), UserError);                        // surrogate
}
