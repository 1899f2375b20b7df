// Random erasing (Zhong et al.) as timm's RandomErasing applies it to a normalised sample: with
// `probability`, a number of boxes uniform in 1 … max_boxes (timm's --recount), each of 2–33 % of
// the image divided by that number, filled with 0 (the dataset's mean colour after normalisation),
// with one standard-normal value per channel and box, or with one per pixel (timm's --remode
// const, rand, pixel). Every draw comes from the sample's seeded generator, so a sample erases the
// same way for any worker count; the normal values are the generator's (data/beta_draw.h), not torch's.
#pragma once
#include <cstdint>

#include "config/setting_types.h"
#include "data/rng.h"

namespace trainer {

struct RandomErasing {
  double probability = 0.0;
  ErasingMode mode = ErasingMode::constant;
  int64_t max_boxes = 1;
};

// Erases `sample`, `channels` planes of side × side floats, in place as `erasing` says. Nothing is
// drawn at probability 0; a sample erased in const mode with one box draws exactly what
// torchvision's rule (2–33 %, aspect 0.3–3.3) drew before the modes existed.
void random_erase(const RandomErasing& erasing, int64_t side, int64_t channels, SplitMix64& rng, float* sample);

}  // namespace trainer
