// Our ResNets must be drop-in for torchvision's: same keys in the same order, same shapes, same
// logits from the same weights. That is what lets users start from torchvision checkpoints.
#include <catch2/catch.hpp>

#include "io/state_dict.h"
#include "io/tensor_archive.h"
#include "models/resnet.h"
#include "models/trainable.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;

namespace {

// torchvision's reference data; the deep ones (large files) only for the tests that ask.
std::string torchvision_file(const std::string& arch) {
  if (arch == "resnet101" || arch == "resnet152") {
    static const testing::PythonOutput deep("resnet_fixture.py", "resnet101 resnet152");
    return deep.file(arch + ".pt");
  }
  static const testing::PythonOutput fixture("resnet_fixture.py");
  return fixture.file(arch + ".pt");
}

struct Reference {
  std::vector<std::string> keys;
  std::map<std::string, torch::Tensor> weights;
  torch::Tensor input, logits;
};

Reference load_reference(const std::string& arch) {
  const c10::IValue archive = read_archive(torchvision_file(arch));
  const c10::impl::GenericDict dict = archive.toGenericDict();
  Reference reference;
  const c10::IValue keys = dict.at("keys");
  for (const c10::IValue& key : keys.toListRef())
    reference.keys.push_back(key.toStringRef());
  reference.weights = tensor_map(dict.at("state_dict"));
  reference.input = dict.at("input").toTensor();
  reference.logits = dict.at("logits").toTensor();
  return reference;
}

}  // namespace

TEST_CASE("resnets have torchvision's keys in its order and give its logits from its weights",
          "[models]") {
  const std::string arch =
      GENERATE(as<std::string>(), "resnet18", "resnet34", "resnet50", "resnet101", "resnet152");
  INFO(arch);
  const Reference reference = load_reference(arch);
  ResNet model = make_resnet(arch, 3, 1000, NormKind::batch);

  std::vector<std::string> keys;
  for (const auto& [name, tensor] : state_dict(*model)) {
    keys.push_back(name);
    INFO(name);
    REQUIRE(reference.weights.count(name) == 1);
    CHECK(tensor.sizes() == reference.weights.at(name).sizes());
  }
  CHECK(keys == reference.keys);

  const LoadReport report = load_state_dict(*model, reference.weights, /*strict=*/true);
  CHECK(report.loaded.size() == reference.keys.size());
  model->eval();
  torch::NoGradGuard no_grad;
  const torch::Tensor logits = model->forward(reference.input);
  INFO("largest difference " << (logits - reference.logits).abs().max().item<double>());
  // Relative too: other convolution kernels than the fixture's (ATen's, where a start-up check
  // switched oneDNN off) put ResNet50's logits 1.03e-4 apart on LibTorch 2.6.
  CHECK(torch::allclose(logits, reference.logits, 1e-4, 1e-4));
}

TEST_CASE("frozen_bn resnets load torchvision weights and give its eval logits in train mode",
          "[models]") {
  const Reference reference = load_reference("resnet18");
  ResNet model = make_resnet("resnet18", 3, 1000, NormKind::frozen_batch);
  load_state_dict(*model, reference.weights, /*strict=*/true);
  model->train();
  torch::NoGradGuard no_grad;
  CHECK(torch::allclose(model->forward(reference.input), reference.logits, 0.0, 1e-4));
}

TEST_CASE("resnet parameter counts match torchvision's at 1000 classes", "[models]") {
  CHECK(testing::parameter_count(*make_resnet("resnet18", 3, 1000, NormKind::batch)) == 11'689'512);
  CHECK(testing::parameter_count(*make_resnet("resnet34", 3, 1000, NormKind::batch)) == 21'797'672);
  CHECK(testing::parameter_count(*make_resnet("resnet50", 3, 1000, NormKind::batch)) == 25'557'032);
  CHECK(testing::parameter_count(*make_resnet("resnet101", 3, 1000, NormKind::batch)) == 44'549'160);
  CHECK(testing::parameter_count(*make_resnet("resnet152", 3, 1000, NormKind::batch)) == 60'192'808);
}

TEST_CASE("timm's tagged names build the tag's architecture and unknown ones are named", "[models][timm]") {
  const auto keys_of = [](const std::string& name) {
    std::vector<std::string> keys;
    for (const auto& [key, tensor] : state_dict(*make_resnet(name, 3, 10, NormKind::batch))) keys.push_back(key);
    return keys;
  };
  CHECK(keys_of("resnet50.a1_in1k") == keys_of("resnet50"));
  CHECK(keys_of("resnet18.tv_in1k") == keys_of("resnet18"));
  CHECK(keys_of("resnet101.tv2_in1k") == keys_of("resnet101"));
  CHECK(keys_of("resnet50.a1_in1k") != keys_of("resnet101"));
  CHECK_THROWS_WITH(make_resnet("resnet26d.a1_in1k", 3, 10, NormKind::batch),
                    Catch::Contains("unknown model 'resnet26d.a1_in1k'") &&
                        Catch::Contains("resnet18, resnet34, resnet50, resnet101, resnet152"));
  CHECK_THROWS_AS(make_resnet("resnet200", 3, 10, NormKind::batch), UserError);
}

TEST_CASE("in_channels and classes change only conv1 and fc", "[models]") {
  const auto standard = state_dict(*make_resnet("resnet50", 3, 1000, NormKind::batch));
  ResNet custom = make_resnet("resnet50", 1, 10, NormKind::batch);
  const auto changed = state_dict(*custom);
  REQUIRE(changed.size() == standard.size());
  for (size_t i = 0; i < standard.size(); ++i) {
    const std::string& name = standard[i].first;
    INFO(name);
    REQUIRE(changed[i].first == name);
    if (name == "conv1.weight") {
      CHECK(changed[i].second.sizes() == torch::IntArrayRef({64, 1, 7, 7}));
    } else if (name == "fc.weight") {
      CHECK(changed[i].second.sizes() == torch::IntArrayRef({10, 2048}));
    } else if (name == "fc.bias") {
      CHECK(changed[i].second.sizes() == torch::IntArrayRef({10}));
    } else {
      CHECK(changed[i].second.sizes() == standard[i].second.sizes());
    }
  }
  torch::NoGradGuard no_grad;
  custom->eval();
  CHECK(custom->forward(torch::randn({2, 1, 28, 28})).sizes() == torch::IntArrayRef({2, 10}));
}

TEST_CASE("resnets start from torchvision's initialisation", "[models]") {
  torch::manual_seed(0);
  ResNet model = make_resnet("resnet18", 3, 1000, NormKind::batch);
  // kaiming_normal_ with fan_out: std = sqrt(2 / (out_channels * kernel area)).
  const double expected_std = std::sqrt(2.0 / (64 * 7 * 7));
  CHECK(model->conv1->weight.std().item<double>() == Approx(expected_std).epsilon(0.05));
  CHECK(model->conv1->weight.mean().item<double>() == Approx(0.0).margin(0.002));
  for (const auto& module : model->modules(/*include_self=*/false)) {
    if (const auto* norm = module->as<torch::nn::BatchNorm2d>()) {
      CHECK(torch::all(norm->weight == 1).item<bool>());
      CHECK(torch::all(norm->bias == 0).item<bool>());
    }
  }
  // Linear's default init, as in Python: U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
  CHECK(model->fc->weight.abs().max().item<double>() <= 1.0 / std::sqrt(512.0));
}

TEST_CASE("resnets accept gn and report batch norm only for bn", "[models]") {
  ResNet batch = make_resnet("resnet18", 3, 10, NormKind::batch);
  ResNet group = make_resnet("resnet18", 3, 10, NormKind::group);
  ResNet frozen = make_resnet("resnet18", 3, 10, NormKind::frozen_batch);
  CHECK(has_batch_norm(*batch));
  CHECK_FALSE(has_batch_norm(*group));
  CHECK_FALSE(has_batch_norm(*frozen));
  CHECK(group->buffers().empty());
  torch::NoGradGuard no_grad;
  CHECK(group->forward(torch::randn({1, 3, 32, 32})).sizes() == torch::IntArrayRef({1, 10}));
}

TEST_CASE("cloned resnets hold equal but independent weights", "[models]") {
  ResNet model = make_resnet("resnet18", 3, 10, NormKind::batch);
  model->eval();
  auto copy = std::dynamic_pointer_cast<ResNetImpl>(model->clone());
  REQUIRE(copy != nullptr);
  const torch::Tensor input = torch::randn({1, 3, 32, 32});
  torch::NoGradGuard no_grad;
  CHECK(torch::equal(copy->forward(input), model->forward(input)));
  copy->fc->bias.add_(1);
  CHECK_FALSE(torch::equal(copy->fc->bias, model->fc->bias));
}

TEST_CASE("make_resnet names the allowed models when given another", "[models]") {
  CHECK_THROWS_AS(make_resnet("resnet200", 3, 10, NormKind::batch), UserError);
  CHECK_THROWS_WITH(
      make_resnet("resnet19", 3, 10, NormKind::batch),
      Catch::Contains("'resnet19'") && Catch::Contains("resnet18, resnet34, resnet50, resnet101, resnet152"));
}
