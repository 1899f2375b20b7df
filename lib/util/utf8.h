// UTF-8 text as code points: labels and character sets (Chinese included) are compared and
// encoded per character, never per byte.
#pragma once
#include <string>

namespace trainer {

// Throws UserError naming `where` on malformed UTF-8.
std::u32string decode_utf8(const std::string& text, const std::string& where);
std::string encode_utf8(const std::u32string& text);
// Unicode simple lower-case mapping per code point (Python's str.lower() for nearly all text).
std::u32string lower_case(const std::u32string& text);

}  // namespace trainer
