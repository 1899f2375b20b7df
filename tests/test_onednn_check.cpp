#include <catch2/catch.hpp>

#include <ATen/Context.h>
#include <ATen/Parallel.h>

#include "util/onednn_check.h"

TEST_CASE("oneDNN's convolution gradients agree with ATen's in this process", "[util]") {
  // main() ran use_correct_convolutions: where this build's oneDNN was wrong, it is off.
  CHECK(trainer::onednn_convolution_gradients_agree());
}

TEST_CASE("the oneDNN check leaves threads, the oneDNN switch and the generator as they were", "[util]") {
  const int threads = at::get_num_threads();
  const bool onednn = at::globalContext().userEnabledMkldnn();
  torch::manual_seed(7);
  const torch::Tensor expected = torch::rand({4});
  torch::manual_seed(7);
  trainer::onednn_convolution_gradients_agree();
  CHECK(torch::equal(torch::rand({4}), expected));
  CHECK(at::get_num_threads() == threads);
  CHECK(at::globalContext().userEnabledMkldnn() == onednn);
  at::globalContext().setUserEnabledMkldnn(false);
  CHECK(trainer::onednn_convolution_gradients_agree());
  CHECK_FALSE(at::globalContext().userEnabledMkldnn());
  at::globalContext().setUserEnabledMkldnn(onednn);
}
