// Normal, Gamma and Beta draws for augmentation. Hand-written like rng.h, for the same reason: <random>'s
// distributions are implementation-defined, and a seed must give the same batches everywhere.
#pragma once
#include "data/rng.h"

namespace trainer {

// Standard normal (Box and Muller's transform, one of the pair): random erasing's noise, timm's
// RandAugment magnitude noise, and the Gamma draws below.
double normal_draw(SplitMix64& rng);

// Gamma(shape, 1), shape > 0 (Marsaglia and Tsang's method; below 1 through Gamma(shape + 1)).
double gamma_draw(double shape, SplitMix64& rng);

// Beta(alpha, alpha), alpha > 0: the mixing weight of MixUp and CutMix.
double symmetric_beta_draw(double alpha, SplitMix64& rng);

}  // namespace trainer
