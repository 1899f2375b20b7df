// The validation loop every task shares: eval and inference mode inside, the model's mode restored
// after, one padded input shape, every batch in order, and a loader that ends early is an error.
#include <catch2/catch.hpp>

#include "engine/validator.h"
#include "test_helpers.h"

using namespace trainer;
using trainer::testing::batches_of;

namespace {

// Batches whose input rows hold their sample indices, so a test sees which samples arrived.
Batch indices_as_input(const std::vector<size_t>& indices, int64_t) {
  Batch batch;
  batch.size = static_cast<int64_t>(indices.size());
  batch.input = torch::empty({batch.size, 2});
  for (size_t i = 0; i < indices.size(); ++i) batch.input[static_cast<int64_t>(i)].fill_(static_cast<double>(indices[i]));
  batch.target = torch::zeros({batch.size}, torch::kLong);
  return batch;
}

}  // namespace

TEST_CASE("validation batches arrive in order, padded to one shape, in eval and inference mode", "[tasks]") {
  const auto batches = batches_of(10, 4);  // 4 + 4 + 2: the last one is padded
  Loader loader(indices_as_input, 1, 2);
  loader.start_epoch(batches, 0);
  torch::nn::Linear model(2, 1);
  model->train();

  std::vector<size_t> positions;
  std::vector<double> samples;
  for_each_validation_batch(*model, loader, batches.size(), 4, torch::kCPU,
                            [&](size_t position, const Batch& batch, const torch::Tensor& input) {
    CHECK_FALSE(model->is_training());
    CHECK(c10::InferenceMode::is_enabled());
    CHECK(input.size(0) == 4);
    CHECK(batch.size == static_cast<int64_t>(batches[position].size()));
    // The padding rows are zero; the real rows are the batch's own samples.
    CHECK(input.narrow(0, batch.size, 4 - batch.size).abs().sum().item<double>() == 0.0);
    for (int64_t row = 0; row < batch.size; ++row) samples.push_back(input[row][0].item<double>());
    positions.push_back(position);
  });
  CHECK(positions == std::vector<size_t>{0, 1, 2});
  CHECK(samples == std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(model->is_training());

  SECTION("a model in eval mode stays in it") {
    model->eval();
    loader.start_epoch(batches, 0);
    for_each_validation_batch(*model, loader, batches.size(), 4, torch::kCPU, [](size_t, const Batch&, const torch::Tensor&) {});
    CHECK_FALSE(model->is_training());
  }
  SECTION("a loader with fewer batches than expected is an error") {
    loader.start_epoch(batches_of(4, 4), 0);
    CHECK_THROWS_WITH(
        for_each_validation_batch(*model, loader, batches.size(), 4, torch::kCPU, [](size_t, const Batch&, const torch::Tensor&) {}),
        Catch::Contains("validation loader ended after 1 of 3 batches"));
  }
}
