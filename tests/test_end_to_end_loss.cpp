// YOLO26's end-to-end loss against an independent loop-by-loop PyTorch formulation of Ultralytics
// 8.4's E2ELoss (scripts/python/end_to_end_loss_fixture.py): both branches, their assignments
// (top-7 then top-1 for the one-to-one branch, the small-target rule), the L1 term without
// distance bins, the epoch's branch weights, and the gradients; and the NMS-free detections.
#include <catch2/catch.hpp>

#include "io/tensor_archive.h"
#include "tasks/end_to_end_detections.h"
#include "tasks/end_to_end_loss.h"
#include "test_helpers.h"

using namespace trainer;

namespace {

struct Reference {
  std::vector<torch::Tensor> levels, gradients;
  torch::Tensor targets, total, parts;
  int64_t epoch = 0, epochs = 0;
};

const Reference& python_reference() {
  static const Reference reference = [] {
    const testing::TempDir dir("end_to_end_loss");
    testing::run_python("end_to_end_loss_fixture.py", testing::quoted(dir.file("fixture.pt")));
    const c10::impl::GenericDict dict = read_archive(dir.file("fixture.pt")).toGenericDict();
    Reference read;
    read.levels = testing::tensor_list(dict.at("levels"));
    read.gradients = testing::tensor_list(dict.at("gradients"));
    read.targets = dict.at("targets").toTensor();
    read.total = dict.at("total").toTensor();
    read.parts = dict.at("parts").toTensor();
    read.epoch = dict.at("epoch").toInt();
    read.epochs = dict.at("epochs").toInt();
    return read;
  }();
  return reference;
}

}  // namespace

TEST_CASE("YOLO26's branch weights move from one-to-many to one-to-one over the run",
          "[detect][yolo26]") {
  CHECK(EndToEndDetectionLoss::one_to_many_weight(0, 10) == Approx(0.8));
  CHECK(EndToEndDetectionLoss::one_to_many_weight(9, 10) == Approx(0.1));
  CHECK(EndToEndDetectionLoss::one_to_many_weight(3, 10) == Approx(0.8 - 0.7 * 3 / 9));
  CHECK(EndToEndDetectionLoss::one_to_many_weight(0, 1) == Approx(0.8));  // a one-epoch run
}

TEST_CASE(
    "YOLO26's end-to-end loss and its gradients match Ultralytics 8.4's, written independently",
    "[detect][yolo26]") {
  const Reference& reference = python_reference();
  EndToEndDetectionLoss loss(3, {8, 16, 32}, 1, {}, reference.epochs);
  loss.set_epoch(reference.epoch);
  std::vector<torch::Tensor> levels;
  for (const torch::Tensor& level : reference.levels)
    levels.push_back(level.clone().requires_grad_());
  const LossOutput out = loss(levels, reference.targets);
  INFO("ours " << out.parts << " python " << reference.parts);
  CHECK(torch::allclose(out.parts, reference.parts, 1e-4, 1e-5));
  CHECK(out.total.item<double>() == Approx(reference.total.item<double>()).epsilon(1e-4));
  out.total.backward();
  for (size_t i = 0; i < levels.size(); ++i) {
    INFO("level " << i);
    CHECK(reference.gradients[i].ne(0).any().item<bool>());
    CHECK(torch::allclose(levels[i].grad(), reference.gradients[i], 1e-4, 1e-6));
  }
  loss.set_epoch(0);  // another epoch, another weighting of the same branches
  CHECK(loss(reference.levels, reference.targets).total.item<double>() !=
        Approx(reference.total.item<double>()).epsilon(1e-3));
}

TEST_CASE("NMS-free detections take the best anchor-class pairs, one box per pair",
          "[detect][yolo26]") {
  // Two images, three anchors, two classes: [B, 4 + C, A].
  torch::Tensor prediction = torch::zeros({2, 6, 3});
  prediction.select(0, 0).narrow(0, 0, 4).copy_(
      torch::tensor({{0.0, 10.0, 20.0}, {0.0, 10.0, 20.0}, {5.0, 15.0, 25.0}, {5.0, 15.0, 25.0}}));
  prediction.select(0, 0).narrow(0, 4, 2).copy_(torch::tensor({{0.9, 0.2, 0.6}, {0.8, 0.05, 0.1}}));
  const std::vector<torch::Tensor> found = top_detections(prediction, 2, 0.25);
  REQUIRE(found.size() == 2);
  // The two best anchors by best class are 0 (0.9) and 2 (0.6); their best pairs 0.9 and 0.8,
  // both of anchor 0: overlapping boxes of two classes, kept as they are (no suppression).
  REQUIRE(found[0].size(0) == 2);
  CHECK(torch::allclose(found[0][0], torch::tensor({0.f, 0.f, 5.f, 5.f, 0.9f, 0.f})));
  CHECK(torch::allclose(found[0][1], torch::tensor({0.f, 0.f, 5.f, 5.f, 0.8f, 1.f})));
  CHECK(found[1].size(0) == 0);  // every score 0: below the threshold
}
