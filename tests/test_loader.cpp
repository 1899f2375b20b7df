// The Loader's contract: in-order, worker-count-independent batches, bounded look-ahead, errors
// surfacing at next(), and clean cancellation when a new epoch starts early.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <numeric>
#include <thread>

#include "data/classify/classify_transform.h"
#include "data/classify/open_dataset.h"
#include "data/loader.h"
#include "data/sampler.h"
#include "test_helpers.h"
#include "test_skip.h"
#include "util/error.h"

using namespace trainer;
using trainer::testing::batches_of;
using namespace std::chrono_literals;

namespace {

// Encodes indices and epoch into the batch, sleeping a little so workers overlap and finish out of
// order.
Batch encode(const std::vector<size_t>& indices, int64_t epoch) {
  std::this_thread::sleep_for(std::chrono::microseconds(100 * (indices.front() % 7)));
  Batch batch;
  batch.size = int64_t(indices.size());
  batch.target = torch::empty({batch.size}, torch::kInt64);
  for (size_t i = 0; i < indices.size(); ++i) batch.target[int64_t(i)] = int64_t(indices[i]) + 1000 * epoch;
  batch.input = torch::full({batch.size, 1}, double(epoch));
  return batch;
}

std::vector<std::vector<int64_t>> drain(Loader& loader) {
  std::vector<std::vector<int64_t>> seen;
  while (auto batch = loader.next()) {
    const auto target = batch->target.contiguous();
    seen.emplace_back(target.data_ptr<int64_t>(), target.data_ptr<int64_t>() + batch->size);
  }
  return seen;
}

}  // namespace

TEST_CASE("Loader returns the same batches in order for 0, 1 and 3 workers", "[data]") {
  std::vector<std::vector<std::vector<int64_t>>> runs;
  for (const int64_t workers : {0, 1, 3}) {
    Loader loader(encode, workers, 2);
    for (int64_t epoch = 0; epoch < 2; ++epoch) {
      loader.start_epoch(batches_of(45, 4), epoch);
      CHECK(loader.batches_in_epoch() == 12);
      runs.push_back(drain(loader));
    }
  }
  REQUIRE(runs[0].size() == 12);
  CHECK(runs[0][0] == std::vector<int64_t>{0, 1, 2, 3});
  CHECK(runs[0][11] == std::vector<int64_t>{44});
  CHECK(runs[1][0] == std::vector<int64_t>{1000, 1001, 1002, 1003});
  CHECK(runs[2] == runs[0]);
  CHECK(runs[4] == runs[0]);
  CHECK(runs[3] == runs[1]);
  CHECK(runs[5] == runs[1]);
}

TEST_CASE("Loader resumes an epoch at first_batch", "[data]") {
  Loader loader(encode, 2, 3);
  loader.start_epoch(batches_of(20, 5), 0, 3);
  const auto seen = drain(loader);
  CHECK(loader.batches_in_epoch() == 4);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0] == std::vector<int64_t>{15, 16, 17, 18, 19});
}

TEST_CASE("Loader never collates more than prefetch batches ahead of the consumer", "[data]") {
  std::atomic<size_t> furthest{0};
  Loader loader([&](const std::vector<size_t>& indices, int64_t epoch) {
    furthest = std::max<size_t>(furthest, indices.front());
    return encode(indices, epoch);
  }, 4, 2);
  loader.start_epoch(batches_of(10, 1), 0);
  for (size_t consumed = 0; consumed < 10; ++consumed) {
    std::this_thread::sleep_for(2ms);  // a slow consumer: workers must wait, not race ahead
    CHECK(furthest <= consumed + 1);
    REQUIRE(loader.next());
  }
  CHECK_FALSE(loader.next());
}

TEST_CASE("Loader rethrows a collate exception from next with its message", "[data]") {
  for (const int64_t workers : {0, 2}) {
    Loader loader([](const std::vector<size_t>& indices, int64_t epoch) {
      if (indices.front() == 8) throw UserError("cannot read image /data/cat/8.png");
      return encode(indices, epoch);
    }, workers, 2);
    loader.start_epoch(batches_of(16, 4), 0);
    CHECK(loader.next());
    CHECK(loader.next());
    CHECK_THROWS_MATCHES(loader.next(), UserError, Catch::Matchers::Message("cannot read image /data/cat/8.png"));
    CHECK(loader.next());
  }
}

TEST_CASE("start_epoch mid-epoch cancels the old epoch cleanly", "[data]") {
  std::atomic<int> old_running{0};
  std::atomic<bool> overlapped{false};
  Loader loader([&](const std::vector<size_t>& indices, int64_t epoch) {
    if (epoch == 0) ++old_running;
    if (epoch == 1 && old_running > 0) overlapped = true;
    std::this_thread::sleep_for(3ms);
    auto batch = encode(indices, epoch);
    if (epoch == 0) --old_running;
    return batch;
  }, 3, 4);
  loader.start_epoch(batches_of(40, 2), 0);
  REQUIRE(loader.next());
  REQUIRE(loader.next());
  // Workers are mid-collate on epoch 0 here; none of that work may leak into epoch 1.
  loader.start_epoch(batches_of(6, 2), 1);
  const auto seen = drain(loader);
  CHECK_FALSE(overlapped);
  CHECK(seen == std::vector<std::vector<int64_t>>{{1000, 1001}, {1002, 1003}, {1004, 1005}});
  // Abandoning an epoch and destroying the loader with work in flight must also be clean.
  loader.start_epoch(batches_of(40, 2), 2);
  REQUIRE(loader.next());
}

TEST_CASE("Loader::for_device leaves CPU batches as they are", "[data]") {
  const Loader::Collate collate = Loader::for_device(encode, torch::Device(torch::kCPU));
  CHECK(collate.target<Batch (*)(const std::vector<size_t>&, int64_t)>() != nullptr);  // encode itself
}

TEST_CASE("Loader::for_device hands out CUDA batches in pinned memory that copy intact", "[data][.gpu]") {
  testing::require_cuda_device();
  Loader loader(Loader::for_device(encode, torch::Device(torch::kCUDA)), 2, 2);
  loader.start_epoch({{0, 1, 2}, {3, 4}}, 0);
  while (auto batch = loader.next()) {
    CHECK(batch->input.is_pinned());
    CHECK(batch->target.is_pinned());
    Batch on_device = *batch;
    on_device.to(torch::Device(torch::kCUDA));
    CHECK(torch::equal(on_device.input.cpu(), batch->input));
  }
}

TEST_CASE("Fashion-MNIST loading throughput for 0, 1 and 2 workers", "[.][benchmark]") {
  const auto data = open_classify_dataset("fashion-mnist", Split::train, 0.0);
  const auto collate = make_classify_collate(*data, {28}, data->normalization(), 0);
  const auto order = epoch_order(subset_indices(data->size(), 1.0, 0), 0, 0, true);
  for (const int64_t workers : {0, 1, 2}) {
    Loader loader(collate, workers, 4);
    loader.start_epoch(make_batches(order, 32, true), 0);
    const auto start = std::chrono::steady_clock::now();
    size_t batches = 0;
    while (loader.next()) ++batches;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    WARN(workers << " workers: " << batches << " batches of 32 in " << seconds << " s = "
                 << batches / seconds << " batches/s, " << 32 * batches / seconds << " images/s");
  }
}
