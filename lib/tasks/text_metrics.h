// Recognition metrics as EasyOCR reports them (exact-match accuracy, norm_ED), plus the
// character error rate. Strings are compared per code point.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

class TextScores {
 public:
  TextScores() = default;
  // Scores from totals() added up over several TextScores (the shards of a distributed validation).
  explicit TextScores(const std::vector<double>& totals);
  void add(const std::u32string& prediction, const std::u32string& truth);
  int64_t samples() const { return samples_; }
  double accuracy() const;  ///< share of exact matches
  // EasyOCR's norm_ED: mean of 1 − ED / max(|gt|, |pred|), a sample scoring 0 when either is empty.
  double norm_ed() const;
  double cer() const;       ///< total edit distance / total ground-truth characters
  std::vector<double> totals() const;

 private:
  int64_t samples_ = 0;
  int64_t exact_ = 0;
  double norm_ed_sum_ = 0;
  int64_t edits_ = 0;
  int64_t truth_characters_ = 0;
};

}  // namespace trainer
