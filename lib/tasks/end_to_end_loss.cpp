#include "tasks/end_to_end_loss.h"

#include <ATen/ATen.h>

#include <algorithm>

namespace trainer {
namespace {

constexpr double kFirstOneToMany = 0.8, kLastOneToMany = 0.1;

DetectionLossOptions branch(DetectionLossOptions options, int64_t topk, int64_t topk2,
                            const std::vector<double>& strides) {
  options.assigner.topk = topk;
  options.assigner.topk2 = topk2;
  options.assigner.small_side = strides.front();
  options.assigner.small_side_grown = strides.size() > 1 ? strides[1] : strides.front();
  return options;
}

}  // namespace

EndToEndDetectionLoss::EndToEndDetectionLoss(int64_t classes, std::vector<double> strides,
                                             int64_t reg_max, DetectionLossOptions options,
                                             int64_t epochs)
    : one_to_many_(classes, strides, reg_max, branch(options, 10, 0, strides)),
      one_to_one_(classes, strides, reg_max, branch(options, 7, 1, strides)),
      epochs_(epochs),
      one_to_many_weight_(torch::full({}, one_to_many_weight(0, epochs))) {}

void EndToEndDetectionLoss::set_epoch(int64_t epoch) {
  one_to_many_weight_.fill_(one_to_many_weight(epoch, epochs_));
}

double EndToEndDetectionLoss::one_to_many_weight(int64_t epoch, int64_t epochs) {
  const double progress =
      static_cast<double>(epoch) / static_cast<double>(std::max<int64_t>(epochs - 1, 1));
  return std::max(1 - progress, 0.0) * (kFirstOneToMany - kLastOneToMany) + kLastOneToMany;
}

LossOutput EndToEndDetectionLoss::operator()(const std::vector<torch::Tensor>& levels,
                                             const torch::Tensor& targets) const {
  TORCH_CHECK(levels.size() % 2 == 0, "EndToEndDetectionLoss: ", levels.size(),
              " head outputs are not two branches");
  const auto middle = levels.begin() + static_cast<std::ptrdiff_t>(levels.size() / 2);
  const LossOutput many = one_to_many_({levels.begin(), middle}, targets);
  const LossOutput one = one_to_one_({middle, levels.end()}, targets);
  if (one_to_many_weight_.device() != levels.front().device()) {
    one_to_many_weight_ = one_to_many_weight_.to(levels.front().device());
  }
  const torch::Tensor& weight = one_to_many_weight_;
  return {many.total * weight + one.total * (1 - weight), one.parts};
}

}  // namespace trainer
