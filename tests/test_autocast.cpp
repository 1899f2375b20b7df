// AutocastGuard: each micro-step's region starts with an empty weight-cast cache, so a forward
// (eager, or captured in a CUDA graph) never uses low-precision copies of weights that changed.
#include <catch2/catch.hpp>

#include <torch/torch.h>

#include "engine/autocast.h"

using namespace trainer;

TEST_CASE("each autocast region casts the weights as they are now", "[engine][amp]") {
  torch::manual_seed(0);
  const torch::Tensor weight = torch::randn({4, 8}, torch::requires_grad());
  const torch::Tensor input = torch::randn({2, 8});
  const auto bump = [&] {
    torch::NoGradGuard no_grad;
    weight.add_(1.0);
  };
  torch::Tensor first;
  {
    AutocastGuard autocast(torch::kCPU, torch::kBFloat16);
    first = torch::linear(input, weight);
    REQUIRE(first.scalar_type() == torch::kBFloat16);
    // Inside one region the cast is cached: a changed weight goes unseen. This is what the
    // guard must not let outlive its region.
    bump();
    REQUIRE(torch::equal(torch::linear(input, weight), first));
  }
  bump();
  torch::Tensor second;
  {
    AutocastGuard autocast(torch::kCPU, torch::kBFloat16);
    second = torch::linear(input, weight);
  }
  CHECK(torch::equal(second, torch::linear(input.to(torch::kBFloat16), weight.detach().to(torch::kBFloat16))));
  CHECK_FALSE(torch::equal(second, first));
}

TEST_CASE("an fp32 guard leaves autocast as it was", "[engine][amp]") {
  AutocastGuard autocast(torch::kCPU, std::nullopt);
  CHECK(torch::linear(torch::randn({2, 8}), torch::randn({4, 8})).scalar_type() == torch::kFloat);
}
