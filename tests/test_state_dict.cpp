// Weight files come from wrapped models (DDP, torch.compile) and from models that differ a little
// (another class count): loading must strip wrapper prefixes and say exactly what did not fit.
#include <catch2/catch.hpp>

#include "io/state_dict.h"
#include "util/error.h"

using namespace trainer;

namespace {

// Own parameter and buffer registered around children, so Python's per-module order shows.
struct NetImpl : torch::nn::Module {
  NetImpl() {
    scale = register_parameter("scale", torch::ones({1}));
    conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 2, 3)));
    bn = register_module("bn", torch::nn::BatchNorm2d(2));
    head = register_module("head", torch::nn::Sequential(torch::nn::Linear(2, 3)));
    steps = register_buffer("steps", torch::zeros({}, torch::kLong));
  }
  torch::Tensor scale, steps;
  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  torch::nn::Sequential head{nullptr};
};
TORCH_MODULE(Net);

std::vector<std::string> keys_of(const torch::nn::Module& module) {
  std::vector<std::string> keys;
  for (const auto& [name, tensor] : state_dict(module)) keys.push_back(name);
  return keys;
}

// Every tensor of `net` filled with its position in the state dict, under `prefix`.
std::map<std::string, torch::Tensor> numbered_weights(const Net& net, const std::string& prefix) {
  std::map<std::string, torch::Tensor> weights;
  double index = 1;
  for (const auto& [name, tensor] : state_dict(*net)) {
    weights[prefix + name] = torch::full(tensor.sizes(), index++, torch::kDouble);
  }
  return weights;
}

}  // namespace

TEST_CASE("state_dict lists each module's parameters, then its buffers, then its children's",
          "[io]") {
  Net net;
  CHECK(keys_of(*net) == std::vector<std::string>{"scale", "steps", "conv.weight", "conv.bias",
                                                  "bn.weight", "bn.bias", "bn.running_mean",
                                                  "bn.running_var", "bn.num_batches_tracked",
                                                  "head.0.weight", "head.0.bias"});
  const auto entries = state_dict(*net);
  CHECK_FALSE(entries.front().second.requires_grad());
  CHECK(entries.front().second.data_ptr() == net->scale.data_ptr());
}

TEST_CASE("load_state_dict strips module. and _orig_mod. prefixes and converts dtype", "[io]") {
  const std::string prefix =
      GENERATE(as<std::string>(), "", "module.", "_orig_mod.", "_orig_mod.module.");
  INFO(prefix);
  Net net;
  const auto weights = numbered_weights(net, prefix);
  const LoadReport report = load_state_dict(*net, weights, /*strict=*/true);
  CHECK(report.loaded.size() == weights.size());
  CHECK(report.missing.empty());
  CHECK(report.unexpected.empty());
  CHECK(report.mismatched.empty());
  for (const auto& [name, tensor] : state_dict(*net)) {
    INFO(name);
    CHECK(tensor.dtype() != torch::kDouble);
    CHECK(torch::equal(tensor.to(torch::kDouble), weights.at(prefix + name)));
  }
}

TEST_CASE("load_state_dict reports missing, unexpected and mismatched keys and loads the rest",
          "[io]") {
  Net net;
  auto weights = numbered_weights(net, "");
  weights.erase("bn.running_var");
  weights["extra.weight"] = torch::zeros({1});
  weights["conv.weight"] = torch::zeros({2, 1, 5, 5});
  const torch::Tensor original_conv = net->conv->weight.clone();

  const LoadReport report = load_state_dict(*net, weights, /*strict=*/false);
  CHECK(report.missing == std::vector<std::string>{"bn.running_var"});
  CHECK(report.unexpected == std::vector<std::string>{"extra.weight"});
  CHECK(report.mismatched ==
        std::vector<std::string>{"conv.weight: file [2, 1, 5, 5] vs model [2, 1, 3, 3]"});
  CHECK(report.loaded.size() == keys_of(*net).size() - 2);
  CHECK(torch::equal(net->conv->weight, original_conv));
  CHECK(torch::all(net->bn->bias == weights.at("bn.bias").to(torch::kFloat)).item<bool>());
}

TEST_CASE("strict load_state_dict lists every problem and copies nothing", "[io]") {
  Net net;
  auto weights = numbered_weights(net, "module.");
  weights.erase("module.head.0.bias");
  weights["module.fc.weight"] = torch::zeros({1});
  weights["module.bn.weight"] = torch::zeros({3});
  const auto before = state_dict(*net);
  std::vector<torch::Tensor> copies;
  for (const auto& [name, tensor] : before) copies.push_back(tensor.clone());

  CHECK_THROWS_AS(load_state_dict(*net, weights, /*strict=*/true), UserError);
  CHECK_THROWS_WITH(load_state_dict(*net, weights, /*strict=*/true),
                    Catch::Contains("missing: head.0.bias") &&
                        Catch::Contains("unexpected: module.fc.weight") &&
                        Catch::Contains("bn.weight: file [3] vs model [2]"));
  for (size_t i = 0; i < before.size(); ++i) {
    INFO(before[i].first);
    CHECK(torch::equal(before[i].second, copies[i]));
  }
}

TEST_CASE("a key given with and without a prefix is unexpected the second time", "[io]") {
  Net net;
  auto weights = numbered_weights(net, "");
  weights["module.scale"] = torch::zeros({1});
  const LoadReport report = load_state_dict(*net, weights, /*strict=*/false);
  CHECK(report.unexpected == std::vector<std::string>{"scale"});
  CHECK(report.missing.empty());
}

TEST_CASE("tensor_map accepts only a dict of name to tensor", "[io]") {
  c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
  dict.insert("weight", torch::ones({2}));
  dict.insert("bias", torch::zeros({2}));
  const auto map = tensor_map(dict);
  CHECK(map.size() == 2);
  CHECK(torch::equal(map.at("weight"), torch::ones({2})));

  CHECK_THROWS_AS(tensor_map(c10::IValue(int64_t{3})), UserError);
  dict.insert("epoch", int64_t{3});
  CHECK_THROWS_WITH(tensor_map(dict), Catch::Contains("'epoch'") && Catch::Contains("Int"));
}
