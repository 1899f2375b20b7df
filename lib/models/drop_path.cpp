#include "models/drop_path.h"

namespace trainer {

torch::Tensor drop_path(const torch::Tensor& branch, double rate, bool training) {
  if (rate == 0.0 || !training) return branch;
  const double keep = 1.0 - rate;
  std::vector<int64_t> shape(static_cast<size_t>(branch.dim()), 1);
  shape[0] = branch.size(0);
  const torch::Tensor kept = branch.new_empty(shape).bernoulli_(keep).div_(keep);
  return branch * kept;
}

double block_drop_path_rate(double rate, int64_t index, int64_t blocks) {
  return blocks > 1 ? rate * static_cast<double>(index) / static_cast<double>(blocks - 1) : 0.0;
}

}  // namespace trainer
