// ModelEma must follow Ultralytics' ramped decay and swap weights in and out for validation.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/model_ema.h"
#include "util/error.h"

using namespace trainer;

namespace {

struct Tiny : torch::nn::Module {
  Tiny() {
    weight = register_parameter("weight", torch::zeros({3}));
    running_mean = register_buffer("running_mean", torch::zeros({3}));
    batches = register_buffer("batches", torch::zeros({}, torch::kLong));
    child = register_module("child", torch::nn::Linear(2, 1));
  }
  torch::Tensor weight, running_mean, batches;
  torch::nn::Linear child{nullptr};
};

void set_weight(Tiny& model, double value) {
  torch::NoGradGuard no_grad;
  model.weight.fill_(value);
}

}  // namespace

TEST_CASE("ModelEma averages parameters and float buffers with the ramped decay", "[engine]") {
  Tiny model;
  ModelEma ema(model, 0.9, 3.0);
  double expected_weight = 0;
  double expected_mean = 0;
  for (int k = 1; k <= 5; ++k) {
    {
      torch::NoGradGuard no_grad;
      model.weight.fill_(k);
      model.running_mean.fill_(-2.0 * k);
    }
    ema.advance();
    ema.update(model);
    const double d = 0.9 * (1 - std::exp(-k / 3.0));
    expected_weight = d * expected_weight + (1 - d) * k;
    expected_mean = d * expected_mean + (1 - d) * (-2.0 * k);
  }
  CHECK(ema.updates() == 5);
  std::map<std::string, torch::Tensor> state;
  for (const auto& [name, t] : ema.state()) state[name] = t;
  CHECK(state.at("weight")[1].item<double>() == Approx(expected_weight).epsilon(1e-6));
  CHECK(state.at("running_mean")[0].item<double>() == Approx(expected_mean).epsilon(1e-6));
  CHECK(state.count("child.weight") == 1);
  CHECK(state.at("updates").item<int64_t>() == 5);
}

// What lets a CUDA graph capture update() once and replay it every update: the decay it applies
// is the one the latest advance() left on the device, not one it works out for itself.
TEST_CASE("ModelEma's update applies the decay of the latest advance", "[engine]") {
  Tiny model;
  ModelEma ema(model, 0.9, 3.0);
  set_weight(model, 1.0);
  ema.advance();
  ema.advance();
  ema.advance();
  ema.update(model);
  ema.update(model);
  const double d = 0.9 * (1 - std::exp(-3 / 3.0));
  CHECK(ema.updates() == 3);
  CHECK(ema.state()[0].second[0].item<double>() == Approx(1 - d * d).epsilon(1e-6));
}

TEST_CASE("ModelEma copies integer buffers instead of averaging them", "[engine]") {
  Tiny model;
  ModelEma ema(model);
  model.batches.fill_(41);
  ema.advance();
  ema.update(model);
  model.batches.fill_(42);
  ema.advance();
  ema.update(model);
  for (const auto& [name, t] : ema.state()) {
    if (name == "batches") CHECK(t.item<int64_t>() == 42);
  }
}

TEST_CASE("ModelEma swap exchanges values in place and a second swap restores the model", "[engine]") {
  Tiny model;
  set_weight(model, 1.0);
  ModelEma ema(model, 0.5, 1e-9);  // d = 0.5 from the first update
  set_weight(model, 3.0);
  ema.advance();
  ema.update(model);  // ema weight = 2
  const void* model_storage = model.weight.data_ptr();

  ema.swap(model);
  CHECK(model.weight[0].item<float>() == 2.0f);
  CHECK(model.weight.requires_grad());
  // Storage stays put: graphs captured on the model and cuDNN's packed LSTM weights still hold.
  CHECK(model.weight.data_ptr() == model_storage);

  ema.swap(model);
  CHECK(model.weight[0].item<float>() == 3.0f);
  CHECK(model.weight.data_ptr() == model_storage);
  CHECK(ema.state()[0].second[0].item<float>() == 2.0f);
}

TEST_CASE("ModelEma state round-trips and names a mis-shaped key", "[engine]") {
  Tiny model;
  ModelEma original(model, 0.9, 2.0);
  set_weight(model, 5.0);
  original.advance();
  original.update(model);
  original.advance();
  original.update(model);
  std::map<std::string, torch::Tensor> saved;
  for (const auto& [name, t] : original.state()) saved[name] = t.clone();

  Tiny other;
  ModelEma restored(other);
  restored.load_state(saved);
  CHECK(restored.updates() == 2);
  CHECK(torch::equal(restored.state()[0].second, saved.at("weight")));

  saved["child.weight"] = torch::zeros({4});
  CHECK_THROWS_AS(restored.load_state(saved), UserError);
  CHECK_THROWS_WITH(restored.load_state(saved), Catch::Contains("child.weight"));
}
