#include "data/ocr/charset.h"

#include "util/error.h"
#include "util/utf8.h"

namespace trainer {

Charset::Charset(std::u32string characters, const std::string& where) : characters_(std::move(characters)) {
  if (characters_.empty()) throw UserError(where + ": the character set is empty");
  for (size_t i = 0; i < characters_.size(); ++i) {
    // A repeat would give one character two classes, and EasyOCR's converter keeps only the last.
    if (!index_.emplace(characters_[i], static_cast<int64_t>(i) + 1).second) {
      throw UserError(where + ": the character set lists '" + encode_utf8(std::u32string(1, characters_[i])) +
                      "' twice");
    }
  }
}

}  // namespace trainer
