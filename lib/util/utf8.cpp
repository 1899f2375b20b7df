#include "util/utf8.h"

#include <locale.h>
#include <wctype.h>

#include "util/error.h"

namespace trainer {

std::u32string decode_utf8(const std::string& text, const std::string& where) {
  std::u32string decoded;
  size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    size_t length = 0;
    char32_t point = 0;
    if (lead < 0x80) {
      length = 1;
      point = lead;
    } else if ((lead & 0xE0) == 0xC0) {
      length = 2;
      point = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3;
      point = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4;
      point = lead & 0x07;
    } else {
      throw UserError(where + ": invalid UTF-8 byte at offset " + std::to_string(i));
    }
    if (i + length > text.size()) throw UserError(where + ": truncated UTF-8 sequence at offset " + std::to_string(i));
    for (size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) throw UserError(where + ": invalid UTF-8 sequence at offset " + std::to_string(i));
      point = (point << 6) | (next & 0x3F);
    }
    // Overlong forms and surrogates are not valid UTF-8.
    static constexpr char32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (point < kSmallest[length] || point > 0x10FFFF || (point >= 0xD800 && point <= 0xDFFF)) {
      throw UserError(where + ": invalid UTF-8 sequence at offset " + std::to_string(i));
    }
    decoded.push_back(point);
    i += length;
  }
  return decoded;
}

std::string encode_utf8(const std::u32string& text) {
  std::string encoded;
  for (const char32_t point : text) {
    if (point < 0x80) {
      encoded.push_back(static_cast<char>(point));
    } else if (point < 0x800) {
      encoded.push_back(static_cast<char>(0xC0 | (point >> 6)));
      encoded.push_back(static_cast<char>(0x80 | (point & 0x3F)));
    } else if (point < 0x10000) {
      encoded.push_back(static_cast<char>(0xE0 | (point >> 12)));
      encoded.push_back(static_cast<char>(0x80 | ((point >> 6) & 0x3F)));
      encoded.push_back(static_cast<char>(0x80 | (point & 0x3F)));
    } else {
      encoded.push_back(static_cast<char>(0xF0 | (point >> 18)));
      encoded.push_back(static_cast<char>(0x80 | ((point >> 12) & 0x3F)));
      encoded.push_back(static_cast<char>(0x80 | ((point >> 6) & 0x3F)));
      encoded.push_back(static_cast<char>(0x80 | (point & 0x3F)));
    }
  }
  return encoded;
}

std::u32string lower_case(const std::u32string& text) {
  // towlower in the default "C" locale maps ASCII only; C.UTF-8 (always present in glibc >= 2.35,
  // and in Debian's libc-bin before) carries the full Unicode case tables.
  static const locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  std::u32string lowered = text;
  for (char32_t& point : lowered) {
    if (point < 0x80) {
      if (point >= U'A' && point <= U'Z') point += U'a' - U'A';
    } else if (utf8) {
      point = static_cast<char32_t>(towlower_l(static_cast<wint_t>(point), utf8));
    }
  }
  return lowered;
}

}  // namespace trainer
