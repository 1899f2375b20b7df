// Sync-free clipping must clip exactly as torch::nn::utils::clip_grad_norm_ does.
#include <catch2/catch.hpp>

#include "optim/grad_clip.h"

using namespace trainer;

namespace {

struct Twins {
  std::vector<torch::Tensor> reference_params;  // for torch's clip_grad_norm_, which takes params
  std::vector<torch::Tensor> grads;             // ours, same values
};

Twins make_twins(double grad_scale) {
  torch::manual_seed(2);
  Twins twins;
  for (const auto& shape : std::vector<std::vector<int64_t>>{{30, 20}, {7}, {3, 3, 3}}) {
    const torch::Tensor grad = torch::randn(shape) * grad_scale;
    torch::Tensor param = torch::zeros(shape).requires_grad_();
    param.mutable_grad() = grad.clone();
    twins.reference_params.push_back(param);
    twins.grads.push_back(grad.clone());
  }
  return twins;
}

}  // namespace

TEST_CASE("clip_grad_norm_ clips like torch's and returns the norm from before clipping",
          "[engine]") {
  for (double max_norm : {0.5, 1000.0}) {
    Twins twins = make_twins(1.0);
    const double expected = torch::nn::utils::clip_grad_norm_(twins.reference_params, max_norm);
    const torch::Tensor norm = clip_grad_norm_(twins.grads, max_norm);
    CHECK(norm.dim() == 0);
    CHECK(norm.item<double>() == Approx(expected).epsilon(1e-6));
    for (size_t i = 0; i < twins.grads.size(); ++i) {
      CHECK(torch::allclose(twins.grads[i], twins.reference_params[i].grad(), 1e-6, 1e-7));
    }
  }
}

TEST_CASE("A max_norm of zero only measures the norm", "[engine]") {
  Twins twins = make_twins(10.0);
  const torch::Tensor before = twins.grads[0].clone();
  const torch::Tensor norm = clip_grad_norm_(twins.grads, 0.0);
  CHECK(torch::equal(twins.grads[0], before));
  CHECK(norm.item<double>() == Approx(total_grad_norm(twins.grads).item<double>()));
}

TEST_CASE("total_grad_norm ignores undefined grads and is zero with none", "[engine]") {
  const std::vector<torch::Tensor> grads{torch::full({4}, 1.5), torch::Tensor(),
                                         torch::full({2}, 2.0, torch::kHalf)};
  CHECK(total_grad_norm(grads).item<double>() == Approx(std::sqrt(4 * 2.25 + 2 * 4.0)));
  CHECK(total_grad_norm({torch::Tensor()}).item<double>() == 0.0);
}

TEST_CASE("grad_factors on scaled grads give exactly what unscaling and then clipping give",
          "[engine]") {
  const double scale = 65536.0;
  const torch::Tensor inv_scale = torch::scalar_tensor(1.0 / scale, torch::kFloat);
  for (double max_norm : {0.0, 0.5, 1000.0}) {
    INFO("max_norm " << max_norm);
    Twins unscaled = make_twins(1.0);  // clipped the separate-pass way
    Twins scaled = make_twins(scale);  // the same grads times a power of two
    const torch::Tensor norm = clip_grad_norm_(unscaled.grads, max_norm);
    const GradFactors factors = grad_factors(scaled.grads, inv_scale, max_norm);
    CHECK(factors.found_inf.item<float>() == 0);
    CHECK(factors.found_inf.scalar_type() == torch::kFloat);
    CHECK(torch::equal(factors.norm, norm));
    for (size_t i = 0; i < scaled.grads.size(); ++i) {
      CHECK(torch::equal(scaled.grads[i] * factors.multiplier, unscaled.grads[i]));
    }
  }
}

TEST_CASE("grad_factors flag an inf or NaN anywhere through the norm", "[engine]") {
  const torch::Tensor inv_scale = torch::scalar_tensor(1.0 / 1024, torch::kFloat);
  for (float bad : {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::quiet_NaN()}) {
    Twins twins = make_twins(1.0);
    twins.grads[1][3] = bad;
    CHECK(grad_factors(twins.grads, inv_scale, 1.0).found_inf.item<float>() == 1);
    CHECK(grad_factors(twins.grads, inv_scale, 0.0).found_inf.item<float>() == 1);
  }
  // Finite but absurd grads whose norm overflows float32 are skipped as well.
  const std::vector<torch::Tensor> huge{torch::full({10000}, 1e37f)};
  REQUIRE(huge[0].isfinite().all().item<bool>());
  CHECK(grad_factors(huge, inv_scale, 1.0).found_inf.item<float>() == 1);
}
