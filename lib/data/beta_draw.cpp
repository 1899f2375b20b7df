#include "data/beta_draw.h"

#include <cmath>

namespace trainer {
namespace {

// Uniform in (0, 1]: safe under log and pow.
double open_uniform(SplitMix64& rng) { return 1.0 - rng.uniform(); }

}  // namespace

double normal_draw(SplitMix64& rng) {
  const double radius = std::sqrt(-2.0 * std::log(open_uniform(rng)));
  return radius * std::cos(2.0 * M_PI * rng.uniform());
}

double gamma_draw(double shape, SplitMix64& rng) {
  if (shape < 1.0) return gamma_draw(shape + 1.0, rng) * std::pow(open_uniform(rng), 1.0 / shape);
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = normal_draw(rng), t = 1.0 + c * x;
    if (t <= 0) continue;
    const double v = t * t * t;
    if (std::log(open_uniform(rng)) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

double symmetric_beta_draw(double alpha, SplitMix64& rng) {
  const double x = gamma_draw(alpha, rng), y = gamma_draw(alpha, rng);
  // Both underflow only for tiny alpha, where Beta puts its mass at 0 and 1 equally.
  if (x + y == 0) return rng.uniform() < 0.5 ? 0.0 : 1.0;
  return x / (x + y);
}

}  // namespace trainer
