// pretrained= must find the weights in the checkpoint layouts Python training scripts write,
// say which entry it took, and refuse files without weights by naming the file.
#include <catch2/catch.hpp>

#include "io/checkpoint.h"
#include "io/pretrained.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;
using trainer::testing::TempDir;

namespace {

std::string python_file(const std::string& name) {
  static const testing::PythonOutput files("torch_pickle_fixture.py");
  return files.file(name);
}

// The fixture's linear_state(scale).
torch::Tensor linear_weight(double scale) {
  return torch::arange(8, torch::kFloat).reshape({2, 4}) * scale / 8;
}

}  // namespace

TEST_CASE("pretrained finds the state dict in python checkpoints and names the entry", "[io]") {
  struct Case {
    std::string file, entry;
    double scale;
  };
  // timm keeps EMA weights beside "state_dict"; Python's EMA is taken only when nothing else is.
  for (const Case& c : {Case{"ultralytics.pt", "model", 1}, Case{"timm.pt", "state_dict", 1},
                        Case{"ema_only.pt", "ema", 2}}) {
    INFO(c.file);
    const PretrainedWeights weights = read_pretrained(python_file(c.file));
    CHECK(weights.entry == c.entry);
    REQUIRE(weights.tensors.size() == 2);
    CHECK(torch::equal(weights.tensors.at("weight"), linear_weight(c.scale)));

    torch::nn::Linear linear(4, 2);
    load_pretrained(*linear, python_file(c.file));
    CHECK(torch::equal(linear->weight, linear_weight(c.scale)));
    CHECK(torch::equal(linear->bias, torch::tensor({0.5f, -0.5f})));
  }
  const PretrainedWeights bare = read_pretrained(python_file("linear.pt"));
  CHECK(bare.entry.empty());
  REQUIRE(bare.tensors.size() == 2);
  CHECK(torch::equal(bare.tensors.at("weight"), linear_weight(1)));
}

TEST_CASE("pretrained takes the EMA weights of our checkpoints when they have them", "[io]") {
  const TempDir dir;
  Checkpoint checkpoint;
  checkpoint.task = "classify";
  checkpoint.model = {{"weight", linear_weight(1)}, {"bias", torch::tensor({0.5f, -0.5f})}};
  checkpoint.recipe = "task: classify\n";
  save_checkpoint(dir.file("no_ema.pt"), checkpoint);
  checkpoint.ema = {{"weight", linear_weight(2)}, {"bias", torch::tensor({0.5f, -0.5f})}};
  save_checkpoint(dir.file("ema.pt"), checkpoint);

  const PretrainedWeights without = read_pretrained(dir.file("no_ema.pt"));
  CHECK(without.entry == "model");
  CHECK(torch::equal(without.tensors.at("weight"), linear_weight(1)));
  const PretrainedWeights with = read_pretrained(dir.file("ema.pt"));
  CHECK(with.entry == "ema");
  CHECK(torch::equal(with.tensors.at("weight"), linear_weight(2)));
}

TEST_CASE("pretrained refuses files without a state dict, naming the file and its entries",
          "[io]") {
  const std::string path = python_file("no_weights.pt");
  torch::nn::Linear linear(4, 2);
  CHECK_THROWS_AS(load_pretrained(*linear, path), UserError);
  CHECK_THROWS_WITH(load_pretrained(*linear, path), Catch::Contains(path) &&
                                                        Catch::Contains("'epoch', 'model'"));
  // A whole pickled Linear(2, 3) is read (see below), but nothing of it fits Linear(4, 2).
  CHECK_THROWS_WITH(load_pretrained(*linear, python_file("module.pt")),
                    Catch::Contains("2 of another shape") && Catch::Contains("bias: file [3] vs model [2]"));
}

TEST_CASE("pretrained reads the weights of a whole pickled nn.Module without running it", "[io]") {
  const PretrainedWeights weights = read_pretrained(python_file("module.pt"));  // torch.save(nn.Linear(2, 3))
  CHECK(weights.entry.empty());
  CHECK_FALSE(weights.ultralytics);
  REQUIRE(weights.tensors.size() == 2);
  CHECK(weights.tensors.at("weight").sizes() == torch::IntArrayRef{3, 2});
  CHECK(weights.tensors.at("bias").sizes() == torch::IntArrayRef{3});
  torch::nn::Linear linear(2, 3);
  load_pretrained(*linear, python_file("module.pt"));
  CHECK(torch::equal(linear->weight, weights.tensors.at("weight")));
}
