// The v8 detection loss: its DFL term by hand, the whole loss against an independent loop-by-loop
// PyTorch formulation (scripts/python/detection_loss_fixture.py), its batch and padding
// invariances, and that it trains a tiny YOLOv8n.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include <torch/optim/adam.h>

#include "io/tensor_archive.h"
#include "models/yolo.h"
#include "tasks/box_ops.h"
#include "tasks/detection_loss.h"
#include "test_helpers.h"

using namespace trainer;
using trainer::testing::TempDir;

namespace {

const std::vector<double> kStrides{8, 16, 32};

struct Reference {
  std::vector<torch::Tensor> levels, gradients;  // gradients: of the parts' sum, per level
  torch::Tensor targets, target_scores, parts;
};

Reference read_reference(const std::string& path) {
  const c10::impl::GenericDict dict = read_archive(path).toGenericDict();
  Reference reference;
  reference.levels = testing::tensor_list(dict.at("levels"));
  reference.gradients = testing::tensor_list(dict.at("gradients"));
  reference.targets = dict.at("targets").toTensor();
  reference.target_scores = dict.at("target_scores").toTensor();
  reference.parts = dict.at("parts").toTensor();
  return reference;
}

// Runs scripts/python/detection_loss_fixture.py once for the tests that use it (seconds of Python).
const Reference& python_reference() {
  static const Reference reference = [] {
    const TempDir dir("detection_loss");
    testing::run_python("detection_loss_fixture.py", testing::quoted(dir.file("fixture.pt")));
    return read_reference(dir.file("fixture.pt"));
  }();
  return reference;
}

DetectionLoss loss_for(const std::vector<torch::Tensor>& levels) {
  return DetectionLoss(levels[0].size(1) - 64, kStrides);
}

// Head outputs of two 64x64 images with 3 classes and targets with overlapping boxes and padding,
// made here for the tests that need no reference values.
struct Sample {
  std::vector<torch::Tensor> levels;
  torch::Tensor targets;
};

Sample sample() {
  torch::manual_seed(1);
  Sample s;
  for (const double stride : kStrides) {
    const int64_t cells = 64 / static_cast<int64_t>(stride);
    torch::Tensor level = torch::randn({2, 4 * 16 + 3, cells, cells});
    // Favour short distances, so that predicted boxes overlap the targets.
    level.narrow(1, 0, 64) -= 0.4 * torch::arange(16, torch::kFloat).repeat({4}).view({1, 64, 1, 1});
    s.levels.push_back(level);
  }
  s.targets =
      torch::tensor({{{0.0, 20.0, 22.0, 24.0, 20.0}, {2.0, 30.0, 26.0, 30.0, 36.0}, {1.0, 48.0, 44.0, 20.0, 30.0}},
                     {{1.0, 34.0, 30.0, 40.0, 44.0}, {-1.0, 0.0, 0.0, 0.0, 0.0}, {-1.0, 0.0, 0.0, 0.0, 0.0}}},
                    torch::kFloat);
  return s;
}

// Rows of `rows` padded with `padding` rows of class -1 and arbitrary other values.
torch::Tensor with_padding(const torch::Tensor& rows, int64_t padding, double fill) {
  torch::Tensor extra = torch::full({rows.size(0), padding, 5}, fill, rows.options());
  extra.select(2, 0).fill_(-1);
  return torch::cat({rows, extra}, 1);
}

}  // namespace

TEST_CASE("distribution focal loss splits each side's target between its two bins", "[detect]") {
  // Probabilities 0.5 on bin 3, 0.25 on bin 4, the remaining 0.25 spread over the other 14 bins.
  torch::Tensor probabilities = torch::full({16}, 0.25 / 14, torch::kDouble);
  probabilities[3] = 0.5;
  probabilities[4] = 0.25;
  const torch::Tensor logits = probabilities.log().repeat({1, 4, 1});  // [1, 4, 16]
  // 3.3: 70 % on bin 3, 30 % on bin 4; exactly 3: all on bin 3; below 0: clamped to bin 0;
  // beyond the last bin: clamped to 14.99, 1 % on bin 14 and 99 % on bin 15.
  const torch::Tensor target = torch::tensor({{3.3, 3.0, -2.0, 40.0}}, torch::kDouble);
  const double other = -std::log(0.25 / 14);
  const double expected =
      (0.7 * -std::log(0.5) + 0.3 * -std::log(0.25) + -std::log(0.5) + other + (0.01 * other + 0.99 * other)) / 4;
  const torch::Tensor loss = distribution_focal_loss(logits, target);
  REQUIRE(loss.sizes() == torch::IntArrayRef({1}));
  CHECK(loss.item<double>() == Approx(expected).epsilon(1e-9));
}

TEST_CASE("detection loss and its assignment match an independent PyTorch formulation", "[detect]") {
  const Reference& reference = python_reference();
  const LossOutput out = loss_for(reference.levels)(reference.levels, reference.targets);
  INFO("ours " << out.parts << " python " << reference.parts);
  CHECK(torch::allclose(out.parts, reference.parts, 1e-4, 1e-5));
  CHECK(out.total.item<double>() == Approx(reference.parts.sum().item<double>()).epsilon(1e-4));
  CHECK(out.total.dim() == 0);
  CHECK_FALSE(out.parts.requires_grad());

  // The assignment the loss uses, rebuilt from the public pieces it is made of.
  const HeadOutputs outputs = flatten_head_outputs(reference.levels, 16);
  const Anchors anchors = make_anchors(reference.levels, kStrides);
  const torch::Tensor boxes = dist_to_box(expected_distances(outputs.box_logits, torch::arange(16, torch::kFloat)),
                                          anchors.points, BoxFormat::xyxy) *
                              anchors.strides;
  const torch::Tensor labels = reference.targets.narrow(2, 0, 1);
  const Assignment assigned =
      TaskAlignedAssigner()(outputs.class_logits.sigmoid(), boxes, anchors.points * anchors.strides, labels,
                            xywh_to_xyxy(reference.targets.narrow(2, 1, 4)), labels.ge(0));
  REQUIRE(assigned.scores.sizes() == reference.target_scores.sizes());
  CHECK(torch::allclose(assigned.scores, reference.target_scores, 1e-4, 1e-6));
  CHECK(reference.target_scores.sum().item<double>() > 1);  // the case really has positives
}

TEST_CASE("detection loss gradients match the PyTorch formulation's autograd", "[detect]") {
  const Reference& reference = python_reference();
  std::vector<torch::Tensor> levels;
  for (const torch::Tensor& level : reference.levels) levels.push_back(level.clone().requires_grad_());
  loss_for(levels)(levels, reference.targets).total.backward();
  for (size_t i = 0; i < levels.size(); ++i) {
    INFO("level " << i);
    const torch::Tensor& expected = reference.gradients[i];
    REQUIRE(levels[i].grad().sizes() == expected.sizes());
    // Every head output the loss reaches: box and class logits of assigned anchors, class logits of all.
    CHECK(expected.ne(0).any().item<bool>());
    const double worst = (levels[i].grad() - expected).abs().max().item<double>();
    INFO("largest difference " << worst << " of gradients up to " << expected.abs().max().item<double>());
    CHECK(torch::allclose(levels[i].grad(), expected, 1e-4, 1e-6));
  }
}

// bench-compile trains PyTorch's YOLOv8n with this batched loss: the comparison is only fair
// while it does what ours does.
TEST_CASE("the benchmark's batched PyTorch v8 loss matches the independent formulation", "[detect]") {
  testing::run_python("yolov8_loss.py", "check");
}

TEST_CASE("padding rows never change the detection loss", "[detect]") {
  const Sample s = sample();
  const DetectionLoss loss = loss_for(s.levels);
  const torch::Tensor parts = loss(s.levels, s.targets).parts;
  REQUIRE(parts[0].item<double>() > 0);
  const double fill = GENERATE(0.0, 25.0, std::numeric_limits<double>::quiet_NaN());
  INFO("padding filled with " << fill);
  CHECK(torch::allclose(loss(s.levels, with_padding(s.targets, 3, fill)).parts, parts, 0, 1e-6));
}

TEST_CASE("detection loss is summed over the micro-batch's images", "[detect]") {
  // The same image twice: the target-score normaliser doubles with the sums, so every part doubles.
  const Sample s = sample();
  std::vector<torch::Tensor> one, two;
  for (const torch::Tensor& level : s.levels) {
    one.push_back(level.narrow(0, 0, 1));
    two.push_back(torch::cat({level.narrow(0, 0, 1), level.narrow(0, 0, 1)}));
  }
  const torch::Tensor targets = s.targets.narrow(0, 0, 1);
  const DetectionLoss loss = loss_for(one);
  CHECK(torch::allclose(loss(two, torch::cat({targets, targets})).parts, 2 * loss(one, targets).parts, 1e-5, 1e-6));
}

TEST_CASE("images without boxes give a finite loss with only the class term", "[detect]") {
  const Sample s = sample();
  const int64_t rows = GENERATE(0, 2);
  const LossOutput out = loss_for(s.levels)(s.levels, with_padding(torch::zeros({2, 0, 5}), rows, 0.0));
  CHECK(torch::isfinite(out.parts).all().item<bool>());
  CHECK(out.parts[0].item<double>() == 0);
  CHECK(out.parts[1].item<double>() > 0);
  CHECK(out.parts[2].item<double>() == 0);
}

TEST_CASE("detection loss computes in fp32 from low-precision head outputs", "[detect]") {
  const Sample s = sample();
  std::vector<torch::Tensor> low, widened;
  for (const torch::Tensor& level : s.levels) {
    low.push_back(level.to(torch::kBFloat16));
    widened.push_back(low.back().to(torch::kFloat));
  }
  const DetectionLoss loss = loss_for(s.levels);
  const LossOutput out = loss(low, s.targets);
  CHECK(out.total.scalar_type() == torch::kFloat);
  CHECK(torch::equal(out.parts, loss(widened, s.targets).parts));
}

TEST_CASE("detection loss trains a tiny YOLOv8n on a fixed batch", "[detect]") {
  torch::manual_seed(0);
  Yolo model = make_yolo("yolov8n", 3, 2);
  model->train();
  const torch::Tensor images = torch::rand({2, 3, 64, 64});
  const torch::Tensor targets =
      with_padding(torch::tensor({{{0.0, 20.0, 24.0, 24.0, 30.0}, {1.0, 44.0, 40.0, 30.0, 20.0}},
                                  {{1.0, 32.0, 32.0, 40.0, 40.0}, {-1.0, 0.0, 0.0, 0.0, 0.0}}}),
                   1, 0.0);
  const DetectionLoss loss(2, model->strides());
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(2e-3));
  std::vector<double> history;
  for (int step = 0; step < 6; ++step) {
    optimizer.zero_grad();
    const LossOutput out = loss(model->forward(images), targets);
    out.total.backward();
    REQUIRE(std::isfinite(out.total.item<double>()));
    for (const torch::Tensor& parameter : model->parameters()) {
      if (parameter.grad().defined()) REQUIRE(torch::isfinite(parameter.grad()).all().item<bool>());
    }
    history.push_back(out.total.item<double>());
    optimizer.step();
  }
  INFO("losses " << ::Catch::Detail::stringify(history));
  CHECK(history.back() < 0.8 * history.front());
  // The frozen DFL projection got no gradient and did not move.
  CHECK_FALSE(model->head().dfl->conv->weight.grad().defined());
  CHECK(torch::equal(model->head().dfl->conv->weight.flatten(), torch::arange(16, torch::kFloat)));
}
