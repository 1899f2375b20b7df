// The loss scaler must back off on overflow, grow after a clean run, and together with
// FusedOptimizer::step(found_inf) turn an overflowing step into an exact no-op.
#include <catch2/catch.hpp>

#include <limits>

#include "optim/fused_optimizer.h"
#include "optim/loss_scaler.h"
#include "util/error.h"

using namespace trainer;

namespace {

LossScalerOptions short_interval() {
  LossScalerOptions options;
  options.growth_interval = 3;
  return options;
}

float scale_of(const LossScaler& scaler) { return scaler.scale_value().item<float>(); }
int tracker_of(const LossScaler& scaler) { return scaler.state()[1].second.item<int>(); }

}  // namespace

TEST_CASE("Loss scaling multiplies by the scale and unscale_ divides grads by it", "[engine]") {
  LossScaler scaler(true, torch::kCPU);
  CHECK(scaler.scale(torch::full({}, 0.5)).item<float>() == 32768.0f);
  std::vector<torch::Tensor> grads{torch::full({4}, 65536.0 * 3), torch::Tensor(),
                                   torch::full({2, 2}, 65536.0)};
  const torch::Tensor found_inf = scaler.unscale_(grads);
  CHECK(found_inf.dim() == 0);
  CHECK(found_inf.scalar_type() == torch::kFloat);
  CHECK(found_inf.item<float>() == 0);
  CHECK(torch::equal(grads[0], torch::full({4}, 3.0)));
  CHECK(torch::equal(grads[2], torch::ones({2, 2})));
}

TEST_CASE("An inf or NaN grad sets found_inf, halves the scale and resets the tracker",
          "[engine]") {
  for (float bad : {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::quiet_NaN()}) {
    LossScaler scaler(true, torch::kCPU, short_interval());
    std::vector<torch::Tensor> grads{torch::ones({8})};
    scaler.update(scaler.unscale_(grads));
    scaler.update(scaler.unscale_(grads));
    REQUIRE(tracker_of(scaler) == 2);

    grads.push_back(torch::ones({1000}));
    grads.back()[517] = bad;
    grads.push_back(torch::full({4}, 0.5, torch::kHalf));
    const torch::Tensor found_inf = scaler.unscale_(grads);
    CHECK(found_inf.item<float>() == 1);
    scaler.update(found_inf);
    CHECK(scale_of(scaler) == 32768.0f);
    CHECK(tracker_of(scaler) == 0);
  }
}

TEST_CASE("The scale grows after growth_interval clean updates in a row", "[engine]") {
  LossScaler scaler(true, torch::kCPU, short_interval());
  const torch::Tensor clean = torch::zeros({});
  scaler.update(clean);
  scaler.update(clean);
  CHECK(scale_of(scaler) == 65536.0f);
  scaler.update(clean);
  CHECK(scale_of(scaler) == 131072.0f);
  CHECK(tracker_of(scaler) == 0);
  scaler.update(torch::ones({}));
  scaler.update(clean);
  scaler.update(clean);
  CHECK(scale_of(scaler) == 65536.0f);  // back off to 65536, two clean updates are not enough
}

TEST_CASE("A disabled scaler is the identity but still reports non-finite grads", "[engine]") {
  LossScaler scaler(false, torch::kCPU);
  CHECK_FALSE(scaler.enabled());
  const torch::Tensor loss = torch::full({}, 1.25);
  CHECK(torch::equal(scaler.scale(loss), loss));
  CHECK(scale_of(scaler) == 1.0f);

  std::vector<torch::Tensor> grads{torch::randn({16})};
  const torch::Tensor before = grads[0].clone();
  CHECK(scaler.unscale_(grads).item<float>() == 0);
  CHECK(torch::equal(grads[0], before));

  grads[0][3] = std::numeric_limits<float>::quiet_NaN();
  const torch::Tensor found_inf = scaler.unscale_(grads);
  CHECK(found_inf.item<float>() == 1);
  scaler.update(found_inf);
  CHECK(scale_of(scaler) == 1.0f);
}

TEST_CASE("A step skipped on overflow leaves parameters and optimizer state bit-identical",
          "[engine]") {
  for (OptimizerKind kind : {OptimizerKind::sgd, OptimizerKind::adamw}) {
    torch::manual_seed(1);
    std::vector<torch::Tensor> params{torch::randn({64, 32}).requires_grad_(),
                                      torch::randn({32}).requires_grad_()};
    FusedOptimizerOptions options;
    options.kind = kind;
    FusedOptimizer optimizer({{"all", params, 0.01, 1e-3}}, options);
    LossScaler scaler(true, torch::kCPU);
    auto backward = [&](bool overflow) {
      optimizer.zero_grad();
      torch::Tensor loss = (params[0].sum(0) * params[1]).pow(2).mean();
      if (overflow) loss = loss * std::numeric_limits<float>::infinity();
      scaler.scale(loss).backward();
      std::vector<torch::Tensor> grads;
      for (const auto& p : params) grads.push_back(p.grad());
      const torch::Tensor found_inf = scaler.unscale_(grads);
      optimizer.step(found_inf);
      scaler.update(found_inf);
      return found_inf.item<float>();
    };
    REQUIRE(backward(false) == 0);

    std::vector<torch::Tensor> before;
    for (const auto& p : params) before.push_back(p.detach().clone());
    for (const auto& [name, t] : optimizer.state()) before.push_back(t.clone());
    REQUIRE(backward(true) == 1);
    std::vector<torch::Tensor> after;
    for (const auto& p : params) after.push_back(p.detach());
    for (const auto& [name, t] : optimizer.state()) after.push_back(t);
    for (size_t i = 0; i < before.size(); ++i) CHECK(torch::equal(before[i], after[i]));
    CHECK(scale_of(scaler) == 32768.0f);
  }
}

TEST_CASE("Loss scaler state round-trips and names a missing key", "[engine]") {
  LossScaler original(true, torch::kCPU, short_interval());
  original.update(torch::ones({}));
  original.update(torch::zeros({}));
  std::map<std::string, torch::Tensor> saved;
  for (const auto& [name, t] : original.state()) saved[name] = t.clone();

  LossScaler restored(true, torch::kCPU, short_interval());
  restored.load_state(saved);
  CHECK(scale_of(restored) == 32768.0f);
  CHECK(tracker_of(restored) == 1);

  saved.erase("growth_tracker");
  CHECK_THROWS_AS(restored.load_state(saved), UserError);
  CHECK_THROWS_WITH(restored.load_state(saved), Catch::Contains("growth_tracker"));
}
