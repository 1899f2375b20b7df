// The recognition loss against PyTorch's CTC, and what its label smoothing does to the gradient.
#include <catch2/catch.hpp>
#include <torch/torch.h>

#include "tasks/ctc_loss.h"

using namespace trainer;

namespace {

struct CtcCase {
  torch::Tensor logits, targets, lengths;
};

// Two samples of 12 frames over 5 classes (blank 0), targets of lengths 3 and 1.
CtcCase ctc_case() {
  torch::manual_seed(3);
  return {torch::randn({2, 12, 5}), torch::tensor({{1, 2, 2}, {4, 0, 0}}, torch::kLong), torch::tensor({3, 1}, torch::kLong)};
}

torch::Tensor logit_gradient(const CtcCase& c, double smoothing) {
  const torch::Tensor logits = c.logits.clone().requires_grad_(true);
  ctc_loss_sum(logits, c.targets, c.lengths, smoothing).backward();
  return logits.grad();
}

}  // namespace

TEST_CASE("the CTC sum is PyTorch's per-target-length mean times the batch", "[ocr][loss]") {
  const CtcCase c = ctc_case();
  const torch::Tensor log_probs = torch::log_softmax(c.logits, 2).permute({1, 0, 2});
  const torch::Tensor mean = torch::nn::functional::ctc_loss(
      log_probs, c.targets, torch::full({2}, 12, torch::kLong), c.lengths,
      torch::nn::functional::CTCLossFuncOptions().reduction(torch::kMean).zero_infinity(true));
  CHECK(ctc_loss_sum(c.logits, c.targets, c.lengths).item<double>() == Approx(2 * mean.item<double>()));
}

TEST_CASE("CTC label smoothing mixes every frame's target with the uniform distribution", "[ocr][loss]") {
  // CTC's gradient per frame is (p_t - γ_t) / L for a sample of target length L; smoothed with ε it
  // must be (p_t - ((1 - ε) γ_t + ε / C)) / L = (1 - ε) × plain + ε (p_t - 1 / C) / L.
  const CtcCase c = ctc_case();
  const double smoothing = 0.2;
  const torch::Tensor plain = logit_gradient(c, 0.0), smoothed = logit_gradient(c, smoothing);
  const torch::Tensor p = torch::softmax(c.logits, 2);
  const torch::Tensor lengths = c.lengths.to(torch::kFloat).view({2, 1, 1});
  const torch::Tensor expected = (1 - smoothing) * plain + smoothing * (p - 1.0 / 5) / lengths;
  CHECK(torch::allclose(smoothed, expected, 1e-4, 1e-6));
  CHECK_FALSE(torch::allclose(smoothed, plain, 1e-3, 1e-4));
  // The loss itself: (1 - ε) CTC + ε × the frames' cross-entropy to the uniform distribution.
  const torch::Tensor uniform = -torch::log_softmax(c.logits, 2).mean(2).sum(1) / c.lengths.to(torch::kFloat);
  CHECK(ctc_loss_sum(c.logits, c.targets, c.lengths, smoothing).item<double>() ==
        Approx((1 - smoothing) * ctc_loss_sum(c.logits, c.targets, c.lengths).item<double>() +
               smoothing * uniform.sum().item<double>()));
}
