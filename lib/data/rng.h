// Seeded randomness for data order and augmentation. Hand-written rather than <random>'s
// distributions and std::shuffle, whose outputs are implementation-defined: a seed must give the
// same subset, epoch order and crops with any standard library, worker count or thread schedule.
#pragma once
#include <cstdint>
#include <initializer_list>

namespace trainer {

// Separate streams, so that e.g. the subset draw never correlates with the epoch-0 order.
enum class RngStream : uint64_t {
  subset = 1, epoch_order = 2, augment = 3, group_mix = 4, batch_order = 5, synthetic_data = 6, batch_mix = 7,
  auto_augment = 8, detect_mixup = 9, color_jitter = 10
};

inline uint64_t splitmix64_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  uint64_t next() { return splitmix64_mix(state_ += 0x9E3779B97F4A7C15ull); }

  // Uniform in [0, n), n >= 1. Rejecting the low remainder keeps small ranges free of modulo bias.
  uint64_t below(uint64_t n) {
    const uint64_t threshold = (0 - n) % n;
    for (;;) {
      const uint64_t r = next();
      if (r >= threshold) return r % n;
    }
  }

  // Uniform in [0, 1) from the top 53 bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in [low, high).
  double uniform(double low, double high) { return low + (high - low) * uniform(); }

 private:
  uint64_t state_;
};

// A seed for one (stream, parts...) tuple, e.g. (augment, epoch, sample index).
inline uint64_t derive_seed(uint64_t seed, RngStream stream, std::initializer_list<uint64_t> parts) {
  uint64_t h = splitmix64_mix(seed ^ 0x5851F42D4C957F2Dull);
  h = splitmix64_mix(h ^ static_cast<uint64_t>(stream));
  for (const uint64_t part : parts) h = splitmix64_mix(h + 0x9E3779B97F4A7C15ull + part);
  return h;
}

}  // namespace trainer
