// timm's random erasing modes (--remode const|rand|pixel) and box counts (--recount) on a
// normalised sample: where the boxes go, what fills them, and that a seed repeats it.
#include <catch2/catch.hpp>

#include <torch/torch.h>

#include "data/beta_draw.h"
#include "data/classify/random_erasing.h"

using namespace trainer;

namespace {

constexpr int64_t kSide = 32, kChannels = 3;

// A sample of 7s (no fill value is 7) erased with generator seed `seed`.
torch::Tensor erased(const RandomErasing& erasing, uint64_t seed) {
  torch::Tensor sample = torch::full({kChannels, kSide, kSide}, 7.0f);
  SplitMix64 rng(seed);
  random_erase(erasing, kSide, kChannels, rng, sample.data_ptr<float>());
  return sample;
}

}  // namespace

TEST_CASE("normal_draw draws mean 0 and standard deviation 1, repeatably", "[data][timm]") {
  SplitMix64 rng(11), again(11);
  std::vector<double> values;
  for (int i = 0; i < 200000; ++i) values.push_back(normal_draw(rng));
  const torch::Tensor drawn = torch::tensor(values);
  CHECK(drawn.mean().item<double>() == Approx(0.0).margin(0.01));
  CHECK(drawn.std().item<double>() == Approx(1.0).margin(0.01));
  CHECK((drawn.abs() > 3).to(torch::kDouble).mean().item<double>() == Approx(0.0027).margin(0.0006));
  CHECK(normal_draw(again) == values.front());
}

TEST_CASE("rand and pixel erasing fill const's box with normal values per channel or per pixel", "[data][timm]") {
  int64_t pixel_values = 0;
  double sum = 0, squares = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    INFO("seed " << seed);
    const torch::Tensor constant = erased({1.0, ErasingMode::constant, 1}, seed);
    const torch::Tensor box = constant.ne(7);
    REQUIRE(box.any().item<bool>());
    CHECK(constant.masked_select(box).eq(0).all().item<bool>());
    // The same box in every mode (the fill is drawn after it), its own values inside.
    const torch::Tensor rand = erased({1.0, ErasingMode::rand, 1}, seed);
    const torch::Tensor pixel = erased({1.0, ErasingMode::pixel, 1}, seed);
    CHECK(torch::equal(rand.ne(7), box));
    CHECK(torch::equal(pixel.ne(7), box));
    for (int64_t c = 0; c < kChannels; ++c) {
      const torch::Tensor inside = rand[c].masked_select(box[c]);
      CHECK(inside.eq(inside[0]).all().item<bool>());  // one value per channel
    }
    CHECK(rand[0].masked_select(box[0])[0].item<float>() != rand[1].masked_select(box[1])[0].item<float>());
    const torch::Tensor values = pixel.masked_select(box).to(torch::kDouble);
    if (values.numel() > 1) CHECK(values.std().item<double>() > 0.3);  // one value per pixel
    pixel_values += values.numel();
    sum += values.sum().item<double>();
    squares += values.square().sum().item<double>();
  }
  REQUIRE(pixel_values > 5000);
  CHECK(sum / double(pixel_values) == Approx(0.0).margin(0.05));
  CHECK(squares / double(pixel_values) == Approx(1.0).margin(0.05));
}

TEST_CASE("erasing_count cuts 1 to N boxes sharing the area, and a seed repeats the sample", "[data][timm]") {
  int64_t changed_by_count = 0;
  double largest_share = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const torch::Tensor several = erased({1.0, ErasingMode::constant, 4}, seed);
    CHECK(torch::equal(several, erased({1.0, ErasingMode::constant, 4}, seed)));
    const double share = several[0].eq(0).to(torch::kDouble).mean().item<double>();
    largest_share = std::max(largest_share, share);
    if (!torch::equal(several, erased({1.0, ErasingMode::constant, 1}, seed))) ++changed_by_count;
  }
  // Each of n boxes is at most a third of the image over n (plus rounding of its sides).
  CHECK(largest_share <= 0.36);
  CHECK(changed_by_count > 100);
  // Probability 0 draws nothing and changes nothing.
  SplitMix64 rng(3), untouched(3);
  torch::Tensor sample = torch::full({kChannels, kSide, kSide}, 7.0f);
  random_erase({0.0, ErasingMode::pixel, 3}, kSide, kChannels, rng, sample.data_ptr<float>());
  CHECK(sample.eq(7).all().item<bool>());
  CHECK(rng.next() == untouched.next());
}
