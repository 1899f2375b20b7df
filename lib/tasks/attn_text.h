// Text for EasyOCR's attention decoder (Prediction Attn), as its AttnLabelConverter, train.py and
// test.py have it: class 0 is [GO], the symbol a decoding starts from and the padding, class 1 is
// [s], the end of the text, and character class c of the charset (CTC's numbering, from 1) is c
// + 1.
#pragma once
#include <vector>

#include <ATen/core/Tensor.h>

#include "data/ocr/charset.h"
#include "tasks/ctc_decoder.h"

namespace trainer {

// The classes an Attn recognizer of `charset` predicts: its characters, [GO] and [s].
inline int64_t attn_classes(const Charset& charset) { return charset.classes() + 1; }

// targets [N, S] (charset classes, 0-padded) and target_lengths [N] -> EasyOCR's encoded text
// [N, max_length + 2]: [GO], the characters, [s], then [GO] to the end. The decoder reads
// text[:, :-1] and is trained to predict text[:, 1:].
at::Tensor attn_text(const at::Tensor& targets, const at::Tensor& target_lengths,
                     int64_t max_length);

// EasyOCR's CrossEntropyLoss(ignore_index=0) of logits [N, steps, C] against text[:, 1:] (the
// first `steps` of them): the mean over the batch's characters and [s] tokens, times N, so that
// the engine's division by the samples gives EasyOCR's loss. `smoothing` is the cross-entropy's
// label smoothing.
at::Tensor attn_loss_sum(const at::Tensor& logits, const at::Tensor& text, double smoothing = 0.0);

// Greedy decoding as EasyOCR's test.py: the best class per step up to the first [s]; the
// confidence is the product of those steps' best probabilities.
std::vector<DecodedText> attn_decode(const at::Tensor& logits, const Charset& charset);

}  // namespace trainer
