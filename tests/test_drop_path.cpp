// timm's stochastic depth and classifier dropout on our ResNets: the same per-block rates, the
// same train-mode logits from the same seed as the Python reference (scripts/python/
// drop_path_fixture.py, written from timm's drop.py and resnet.py), and nothing in evaluation.
#include <catch2/catch.hpp>

#include "io/state_dict.h"
#include "io/tensor_archive.h"
#include "models/drop_path.h"
#include "models/resnet.h"
#include "test_helpers.h"

using namespace trainer;

namespace {

c10::Dict<c10::IValue, c10::IValue> drop_path_reference(const std::string& arch) {
  static const testing::PythonOutput fixture("drop_path_fixture.py");
  return read_archive(fixture.file(arch + ".pt")).toGenericDict();
}

}  // namespace

TEST_CASE("timm's drop path rate rises linearly from 0 at the first block to the rate at the last",
          "[models][timm]") {
  CHECK(block_drop_path_rate(0.2, 0, 16) == 0.0);
  CHECK(block_drop_path_rate(0.2, 15, 16) == Approx(0.2));
  CHECK(block_drop_path_rate(0.2, 5, 16) == Approx(0.2 * 5 / 15));
  CHECK(block_drop_path_rate(0.2, 0, 1) == 0.0);
}

TEST_CASE("drop path zeroes whole samples and scales the kept ones, in training only", "[models][timm]") {
  torch::manual_seed(1);
  const torch::Tensor branch = torch::ones({4000, 3, 2, 2});
  CHECK(torch::equal(drop_path(branch, 0.25, false), branch));
  CHECK(torch::equal(drop_path(branch, 0.0, true), branch));
  const torch::Tensor dropped = drop_path(branch, 0.25, true);
  const torch::Tensor per_sample = dropped.flatten(1);
  // Each sample is all 0 or all 1 / 0.75.
  CHECK(torch::equal(per_sample.amin(1), per_sample.amax(1)));
  const torch::Tensor kept = per_sample.select(1, 0) > 0;
  CHECK(torch::allclose(per_sample.select(1, 0).masked_select(kept), torch::full({1}, 1.0 / 0.75)));
  CHECK(kept.to(torch::kFloat).mean().item<double>() == Approx(0.75).margin(0.03));
}

TEST_CASE("resnets with timm's drop path and dropout give the reference's logits from the same seed",
          "[models][timm]") {
  const std::string arch = GENERATE(as<std::string>(), "resnet18", "resnet50");
  INFO(arch);
  const auto reference = drop_path_reference(arch);
  ResNet model = make_resnet(arch, ResNetOptions()
                                       .classes(10)
                                       .drop_path(reference.at("drop_path").toDouble())
                                       .dropout(reference.at("dropout").toDouble()));
  load_state_dict(*model, tensor_map(reference.at("state_dict")), /*strict=*/true);
  const torch::Tensor input = reference.at("input").toTensor();
  model->train();
  torch::manual_seed(static_cast<uint64_t>(reference.at("seed").toInt()));
  torch::NoGradGuard no_grad;
  const torch::Tensor train_logits = model->forward(input);
  CHECK(torch::allclose(train_logits, reference.at("train_logits").toTensor(), 1e-4, 1e-4));
  model->eval();
  const torch::Tensor eval_logits = model->forward(input);
  CHECK(torch::allclose(eval_logits, reference.at("eval_logits").toTensor(), 1e-4, 1e-4));
  // Evaluation draws nothing: the same logits again.
  CHECK(torch::equal(model->forward(input), eval_logits));
}

TEST_CASE("the rate rule gives the reference's rate for every block", "[models][timm]") {
  const std::string arch = GENERATE(as<std::string>(), "resnet18", "resnet50");
  INFO(arch);
  const auto reference = drop_path_reference(arch);
  const c10::List<c10::IValue> rates(reference.at("rates").toList());
  const int64_t blocks = static_cast<int64_t>(rates.size());
  CHECK(blocks == (arch == "resnet18" ? 8 : 16));
  for (int64_t index = 0; index < blocks; ++index) {
    CHECK(block_drop_path_rate(0.3, index, blocks) == Approx(rates.get(static_cast<size_t>(index)).toDouble()));
  }
}
