// Greedy CTC decoding: the best class per time step, repeats merged, blanks dropped.
#pragma once
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "data/ocr/charset.h"

namespace trainer {

struct DecodedText {
  std::u32string text;
  double confidence = 0;  ///< product of the per-step best probabilities, as EasyOCR's trainer reports
};

// logits [B, T, classes] on any device; one read-back for the whole batch.
std::vector<DecodedText> greedy_decode(const at::Tensor& logits, const Charset& charset);

}  // namespace trainer
