// The characters a recognizer emits, as EasyOCR's CTCLabelConverter numbers them: class 0 is the
// CTC blank, character i of the set is class i + 1; a repeated character keeps both classes and
// is encoded as the last, as there.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>

namespace trainer {

class Charset {
 public:
  // `where` names the recipe key or file in the UserError thrown for an empty set.
  Charset(std::u32string characters, const std::string& where);

  const std::u32string& characters() const { return characters_; }
  int64_t classes() const { return static_cast<int64_t>(characters_.size()) + 1; }
  bool contains(char32_t character) const { return index_.count(character) > 0; }
  // The class of `character`, which must be in the set: its last place, for a repeated one.
  int64_t class_of(char32_t character) const { return index_.at(character); }
  // The character of class `index` in [1, classes()).
  char32_t character(int64_t index) const { return characters_.at(static_cast<size_t>(index - 1)); }

 private:
  std::u32string characters_;
  std::unordered_map<char32_t, int64_t> index_;
};

}  // namespace trainer
