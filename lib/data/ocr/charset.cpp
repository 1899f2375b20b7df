#include "data/ocr/charset.h"

#include "util/error.h"

namespace trainer {

Charset::Charset(std::u32string characters, const std::string& where) : characters_(std::move(characters)) {
  if (characters_.empty()) throw UserError(where + ": the character set is empty");
  // A repeated character keeps a class of its own, as in EasyOCR's CTCLabelConverter, so a model
  // saved by EasyOCR has as many classes here; labels encode to its last class, the converter's
  // dict entry, and either class decodes to it.
  for (size_t i = 0; i < characters_.size(); ++i) index_[characters_[i]] = static_cast<int64_t>(i) + 1;
}

}  // namespace trainer
