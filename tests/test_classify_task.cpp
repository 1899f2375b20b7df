// The classification task's training loss: cross-entropy summed over the micro-batch, with
// label_smoothing mixing the uniform distribution into each target.
#include <catch2/catch.hpp>

#include "data/normalized_input.h"
#include "families/recipes.h"
#include "models/resnet.h"
#include "tasks/task_factory.h"
#include "test_helpers.h"

using namespace trainer;
using trainer::testing::TempDir;

namespace {

// The colour two-class images' normalisation (ImageFolder's for colour): batches leave the
// collate as pixels, which the task normalises before its model.
const Normalization kImageNet{{0.485, 0.456, 0.406}, {0.229, 0.224, 0.225}};

}  // namespace

TEST_CASE("label_smoothing spreads that share of each target over all classes", "[tasks][classify]") {
  TempDir dir("label-smoothing");
  trainer::testing::write_two_class_images(dir / "data");
  const double smoothing = GENERATE(0.0, 0.1, 0.3);
  INFO("label_smoothing " << smoothing);
  const Settings settings =
      load_settings(std::nullopt, {"data=" + (dir / "data").string(), "model=resnet18", "imgsz=16", "workers=0",
                                   "device=cpu", "fliplr=0", "crop_pad=0", "label_smoothing=" + std::to_string(smoothing)});
  const auto task = make_task(settings);
  const Batch batch = task->training().train_collate(0)({0, 5, 12, 20}, 0);
  const torch::Tensor loss = task->training().loss(batch).total;
  // The same forward again (train-mode BatchNorm normalises with this batch's statistics either way).
  auto& model = dynamic_cast<ResNetImpl&>(task->model());
  const torch::Tensor log_p = torch::log_softmax(model.forward(normalized_input(batch.input, kImageNet)), 1).detach();
  const torch::Tensor target_term = -log_p.gather(1, batch.target.unsqueeze(1)).squeeze(1);
  const torch::Tensor uniform_term = -log_p.mean(1);
  const double expected = ((1 - smoothing) * target_term + smoothing * uniform_term).sum().item<double>();
  CHECK(loss.item<double>() == Approx(expected).epsilon(1e-5));
  if (smoothing > 0) {
    // The smoothed loss differs from the plain one, so the check above can tell them apart.
    CHECK(std::abs(expected - target_term.sum().item<double>()) > 1e-3);
  }
}

TEST_CASE("mixed batches train on the mixture of both labels' cross-entropies", "[tasks][classify]") {
  TempDir dir("mixed-loss");
  trainer::testing::write_two_class_images(dir / "data");
  const double smoothing = GENERATE(0.0, 0.2);
  const std::string prob = GENERATE("0", "1");
  INFO("label_smoothing " << smoothing << ", mixup_prob " << prob);
  const Settings settings = load_settings(
      std::nullopt, {"data=" + (dir / "data").string(), "model=resnet18", "imgsz=16", "workers=0", "device=cpu",
                     "fliplr=0", "crop_pad=0", "mixup_alpha=1", "mixup_prob=" + prob,
                     "label_smoothing=" + std::to_string(smoothing)});
  const auto task = make_task(settings);
  const std::vector<size_t> indices{0, 5, 12, 20};  // classes 0, 0, 1, 1 of the two-class images
  const torch::Tensor labels = torch::tensor({0, 0, 1, 1}, torch::kInt64);
  const Batch batch = task->training().train_collate(0)(indices, 0);
  REQUIRE(batch.target.sizes() == torch::IntArrayRef{4, 2});
  const torch::Tensor loss = task->training().loss(batch).total;
  auto& model = dynamic_cast<ResNetImpl&>(task->model());
  const torch::Tensor log_p = torch::log_softmax(model.forward(normalized_input(batch.input, kImageNet)), 1).detach();
  // Each label's smoothed cross-entropy, weighted by the share the target gives it (own label first).
  const auto smoothed_ce = [&](const torch::Tensor& y) {
    return (1 - smoothing) * -log_p.gather(1, y.unsqueeze(1)).squeeze(1) + smoothing * -log_p.mean(1);
  };
  const torch::Tensor own = smoothed_ce(labels), mirrored = smoothed_ce(labels.flip(0));
  const double weight = (batch.target[0][0].item<double>() - smoothing / 2) / (1 - smoothing);
  CHECK(loss.item<double>() == Approx((weight * own + (1 - weight) * mirrored).sum().item<double>()).epsilon(1e-5));
  if (prob == std::string("0")) CHECK(weight == Approx(1.0));
  if (prob == std::string("1")) CHECK(weight < 0.999);
}
