#include "tasks/text_metrics.h"

#include <c10/util/Exception.h>

#include <algorithm>

#include "util/text.h"

namespace trainer {

void TextScores::merge(const std::vector<double>& packed) {
  TORCH_INTERNAL_ASSERT(packed.size() == 5, "TextScores totals have 5 entries, got ", packed.size());
  samples_ += static_cast<int64_t>(packed[0]);
  exact_ += static_cast<int64_t>(packed[1]);
  norm_ed_sum_ += packed[2];
  edits_ += static_cast<int64_t>(packed[3]);
  truth_characters_ += static_cast<int64_t>(packed[4]);
}

std::vector<double> TextScores::pack() const {
  return {static_cast<double>(samples_), static_cast<double>(exact_), norm_ed_sum_, static_cast<double>(edits_),
          static_cast<double>(truth_characters_)};
}

void TextScores::add(const std::u32string& prediction, const std::u32string& truth) {
  ++samples_;
  if (prediction == truth) ++exact_;
  const auto distance = static_cast<int64_t>(edit_distance(prediction, truth));
  if (!prediction.empty() && !truth.empty()) {
    norm_ed_sum_ += 1.0 - static_cast<double>(distance) / static_cast<double>(std::max(prediction.size(), truth.size()));
  }
  edits_ += distance;
  truth_characters_ += static_cast<int64_t>(truth.size());
}

double TextScores::accuracy() const {
  return samples_ ? static_cast<double>(exact_) / static_cast<double>(samples_) : 0.0;
}

double TextScores::norm_ed() const { return samples_ ? norm_ed_sum_ / static_cast<double>(samples_) : 0.0; }

double TextScores::cer() const {
  return truth_characters_ ? static_cast<double>(edits_) / static_cast<double>(truth_characters_) : 0.0;
}

}  // namespace trainer
