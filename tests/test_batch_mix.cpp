// MixUp and CutMix: the mixing weight's distribution, pixels and targets that agree with each
// other, label smoothing folded in, and one target type for mixed and unmixed batches.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "data/beta_draw.h"
#include "data/classify/batch_mix.h"

using namespace trainer;

namespace {

// Sample b is the constant image b + 1 with label b % classes.
Batch constant_batch(int64_t count, int64_t classes) {
  Batch batch;
  batch.size = count;
  batch.input = (torch::arange(count, torch::kFloat32) + 1).view({count, 1, 1, 1}).expand({count, 3, 8, 10}).contiguous();
  batch.target = torch::arange(count, torch::kInt64).remainder(classes);
  return batch;
}

struct Moments {
  double mean = 0, variance = 0, min = 0, max = 0;
};

template <typename Draw>
Moments moments_of(Draw draw) {
  const int count = 40000;
  double sum = 0, squares = 0;
  Moments moments{0, 0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  for (int i = 0; i < count; ++i) {
    const double x = draw();
    sum += x;
    squares += x * x;
    moments.min = std::min(moments.min, x);
    moments.max = std::max(moments.max, x);
  }
  moments.mean = sum / count;
  moments.variance = squares / count - moments.mean * moments.mean;
  return moments;
}

}  // namespace

TEST_CASE("gamma and symmetric beta draws have their distributions' mean and variance", "[data]") {
  SplitMix64 rng(1);
  for (const double shape : {0.3, 1.0, 4.5}) {
    INFO("gamma shape " << shape);
    const Moments gamma = moments_of([&] { return gamma_draw(shape, rng); });
    CHECK(gamma.min >= 0);
    CHECK(gamma.mean == Approx(shape).epsilon(0.03));
    CHECK(gamma.variance == Approx(shape).epsilon(0.08));
  }
  for (const double alpha : {0.2, 1.0, 8.0}) {
    INFO("beta alpha " << alpha);
    const Moments beta = moments_of([&] { return symmetric_beta_draw(alpha, rng); });
    CHECK(beta.min >= 0);
    CHECK(beta.max <= 1);
    CHECK(beta.mean == Approx(0.5).epsilon(0.02));
    CHECK(beta.variance == Approx(1.0 / (4 * (2 * alpha + 1))).epsilon(0.06));
  }
}

TEST_CASE("MixUp blends each sample with its mirror and its target by the same weight", "[data]") {
  const int64_t count = 5, classes = 7;
  Batch batch = constant_batch(count, classes);
  SplitMix64 rng(4);
  mix_batch(batch, {1.0, 0.0, 1.0, 0.5, 0.0, classes}, rng);
  REQUIRE(batch.target.sizes() == torch::IntArrayRef{count, classes});
  REQUIRE(batch.target.dtype() == torch::kFloat32);
  CHECK(torch::allclose(batch.target.sum(1), torch::ones({count})));
  for (int64_t b = 0; b < count; ++b) {
    const int64_t mirror = count - 1 - b;
    const double weight = b == mirror ? 1.0 : batch.target[b][b % classes].item<double>();
    const double expected = weight * double(b + 1) + (1 - weight) * double(mirror + 1);
    CHECK(torch::allclose(batch.input[b], torch::full({3, 8, 10}, expected), 1e-5, 1e-5));
  }
  const double weight = batch.target[0][0].item<double>();
  CHECK(weight > 0.0);
  CHECK(weight < 1.0);
  CHECK(batch.target[0][(count - 1) % classes].item<double>() == Approx(1 - weight));
}

TEST_CASE("CutMix pastes the mirror's pixels into a box whose share is the target's", "[data]") {
  const int64_t count = 4, classes = 4;
  int boxes = 0;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    Batch batch = constant_batch(count, classes);
    SplitMix64 rng(seed);
    mix_batch(batch, {0.0, 1.0, 1.0, 0.5, 0.0, classes}, rng);
    for (int64_t b = 0; b < count; ++b) {
      const int64_t mirror = count - 1 - b;
      const auto own = batch.input[b].eq(float(b + 1)), pasted = batch.input[b].eq(float(mirror + 1));
      CHECK(own.logical_or(pasted).all().item<bool>());  // nothing blended
      const double pasted_share = pasted.to(torch::kDouble).mean().item<double>();
      CHECK(batch.target[b][mirror].item<double>() == Approx(pasted_share).margin(1e-6));
      CHECK(batch.target[b][b].item<double>() == Approx(1 - pasted_share).margin(1e-6));
      if (b == 0 && pasted_share > 0) ++boxes;
    }
  }
  CHECK(boxes >= 15);
}

TEST_CASE("unmixed batches and label smoothing still give class probabilities", "[data]") {
  const int64_t count = 6, classes = 3;
  Batch batch = constant_batch(count, classes);
  const torch::Tensor original = batch.input.clone();
  SplitMix64 rng(9);
  mix_batch(batch, {0.4, 1.0, 0.0, 0.5, 0.3, classes}, rng);  // prob 0: never mixed
  CHECK(torch::equal(batch.input, original));
  const torch::Tensor expected =
      torch::one_hot(torch::arange(count).remainder(classes), classes).to(torch::kFloat32) * 0.7f + 0.1f;
  CHECK(torch::allclose(batch.target, expected));
}
