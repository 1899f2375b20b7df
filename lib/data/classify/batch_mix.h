// MixUp and CutMix for classification batches (Zhang et al. 2018, Yun et al. 2019), as timm's
// Mixup applies them in its "batch" mode: one mixing weight per batch, each sample mixed with its
// mirror in the batch (sample b with sample B-1-b), targets become class probabilities.
#pragma once
#include <cstdint>

#include "data/batch.h"
#include "data/rng.h"

namespace trainer {

struct BatchMix {
  double mixup_alpha = 0.0;      ///< MixUp's weight ~ Beta(alpha, alpha); 0 = off
  double cutmix_alpha = 0.0;     ///< CutMix's weight ~ Beta(alpha, alpha); 0 = off
  double prob = 1.0;             ///< share of batches mixed
  double switch_prob = 0.5;      ///< with both on: share of mixed batches that use CutMix
  double label_smoothing = 0.0;  ///< folded into the probabilities (timm's mixup_target)
  int64_t classes = 0;

  bool enabled() const { return mixup_alpha > 0 || cutmix_alpha > 0; }
};

// Mixes batch.input (float32 [B, C, H, W], on the CPU) in place and replaces batch.target
// (int64 [B]) by float32 [B, classes] probabilities, also for a batch the draw leaves unmixed, so
// every training batch has one target type and a captured step one static target buffer.
// CutMix pastes the mirror's pixels into a box of area ~ 1 - weight clipped to the image, and the
// weight is recomputed from the clipped box, so targets match the pixels. Plain loops, no ATen
// parallel region: this runs on loader threads.
void mix_batch(Batch& batch, const BatchMix& mix, SplitMix64& rng);

}  // namespace trainer
