// Recognition metrics as EasyOCR reports them (exact-match accuracy, norm_ED), plus the
// character error rate. Strings are compared per code point.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/meters.h"

namespace trainer {

// A validation meter: each rank scores its shard, and the engine merges the ranks' totals.
class TextScores : public Meter {
 public:
  void add(const std::u32string& prediction, const std::u32string& truth);
  int64_t samples() const { return samples_; }
  double accuracy() const;  ///< share of exact matches
  // EasyOCR's norm_ED: mean of 1 − ED / max(|gt|, |pred|), a sample scoring 0 when either is empty.
  double norm_ed() const;
  double cer() const;       ///< total edit distance / total ground-truth characters
  void reset() override { *this = TextScores(); }
  std::vector<double> pack() const override;
  void merge(const std::vector<double>& packed) override;

 private:
  int64_t samples_ = 0;
  int64_t exact_ = 0;
  double norm_ed_sum_ = 0;
  int64_t edits_ = 0;
  int64_t truth_characters_ = 0;
};

}  // namespace trainer
