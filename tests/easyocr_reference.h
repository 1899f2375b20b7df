// The reference recognizers scripts/python/crnn_fixture.py writes: a dict of "state_dict",
// "keys" (in Python's order), "input" and "logits".
#pragma once
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "io/state_dict.h"

namespace trainer::testing {

// Checks that `model`'s state dict is the reference's, key for key in order and shape for shape;
// returns the reference's weights.
inline std::map<std::string, torch::Tensor> check_easyocr_layout(
    const torch::nn::Module& model, const c10::impl::GenericDict& reference) {
  const auto weights = tensor_map(reference.at("state_dict"));
  std::vector<std::string> reference_keys;
  const c10::IValue reference_key_list = reference.at("keys");
  for (const c10::IValue& key : reference_key_list.toListRef())
    reference_keys.push_back(key.toStringRef());
  std::vector<std::string> keys;
  for (const auto& [name, tensor] : state_dict(model)) {
    keys.push_back(name);
    INFO(name);
    REQUIRE(weights.count(name) == 1);
    CHECK(tensor.sizes() == weights.at(name).sizes());
  }
  CHECK(keys == reference_keys);
  return weights;
}

}  // namespace trainer::testing
