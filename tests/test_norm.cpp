// The norm kinds must keep torchvision's keys, and frozen_bn must truly be frozen: a fine-tune
// with tiny micro-batches relies on its statistics and affine parameters never moving.
#include <catch2/catch.hpp>

#include "io/state_dict.h"
#include "models/norm.h"

using namespace trainer;

namespace {

std::vector<std::string> keys_of(const torch::nn::Module& module) {
  std::vector<std::string> keys;
  for (const auto& [name, tensor] : state_dict(module)) keys.push_back(name);
  return keys;
}

}  // namespace

TEST_CASE("bn is a BatchNorm2d with its usual keys", "[models]") {
  const torch::nn::AnyModule norm = make_norm2d(NormKind::batch, 8);
  CHECK(norm.ptr()->as<torch::nn::BatchNorm2d>() != nullptr);
  CHECK(keys_of(*norm.ptr()) == std::vector<std::string>{"weight", "bias", "running_mean",
                                                         "running_var", "num_batches_tracked"});
}

TEST_CASE("gn has weight and bias only and the largest divisor of channels up to 32 as groups",
          "[models]") {
  CHECK(group_count(64) == 32);
  CHECK(group_count(2048) == 32);
  CHECK(group_count(24) == 24);
  CHECK(group_count(40) == 20);
  CHECK(group_count(3) == 3);

  const torch::nn::AnyModule norm = make_norm2d(NormKind::group, 40);
  const auto* group_norm = norm.ptr()->as<torch::nn::GroupNorm>();
  REQUIRE(group_norm != nullptr);
  CHECK(group_norm->options.num_groups() == 20);
  CHECK(keys_of(*norm.ptr()) == std::vector<std::string>{"weight", "bias"});
  CHECK(norm.ptr()->buffers().empty());
}

TEST_CASE("frozen_bn keeps BatchNorm2d's keys and uses running statistics in train mode",
          "[models]") {
  torch::manual_seed(0);
  torch::nn::AnyModule frozen = make_norm2d(NormKind::frozen_batch, 4);
  CHECK(keys_of(*frozen.ptr()) == keys_of(*make_norm2d(NormKind::batch, 4).ptr()));

  torch::nn::BatchNorm2d reference(4);
  {
    torch::NoGradGuard no_grad;
    reference->weight.uniform_(0.5, 1.5);
    reference->bias.uniform_(-0.5, 0.5);
    reference->running_mean.uniform_(-1, 1);
    reference->running_var.uniform_(0.5, 2);
  }
  std::map<std::string, torch::Tensor> weights;
  for (const auto& [name, tensor] : state_dict(*reference)) weights[name] = tensor.clone();
  load_state_dict(*frozen.ptr(), weights, /*strict=*/true);
  reference->eval();
  frozen.ptr()->train();

  const torch::Tensor input = torch::randn({3, 4, 5, 5}, torch::requires_grad());
  const torch::Tensor output = frozen.forward(input);
  CHECK(torch::allclose(output, reference(input), 1e-5, 1e-6));

  const auto after = state_dict(*frozen.ptr());
  for (const auto& [name, tensor] : after) {
    INFO(name);
    CHECK(torch::equal(tensor, weights.at(name)));
  }
  output.sum().backward();
  const auto* impl = frozen.ptr()->as<FrozenBatchNorm2d>();
  REQUIRE(impl != nullptr);
  CHECK_FALSE(impl->weight.requires_grad());
  CHECK_FALSE(impl->bias.requires_grad());
  CHECK_FALSE(impl->weight.grad().defined());
  CHECK(input.grad().defined());
}

TEST_CASE("register_norm2d puts the layer's keys under its name", "[models]") {
  torch::nn::Module parent;
  torch::nn::AnyModule norm = register_norm2d(parent, "bn1", NormKind::batch, 2);
  CHECK(keys_of(parent) == std::vector<std::string>{"bn1.weight", "bn1.bias", "bn1.running_mean",
                                                    "bn1.running_var", "bn1.num_batches_tracked"});
  CHECK(norm.forward(torch::randn({2, 2, 3, 3})).sizes() == torch::IntArrayRef({2, 2, 3, 3}));
}
