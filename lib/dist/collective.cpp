#include "dist/collective.h"

#include <algorithm>
#include <cstddef>

namespace trainer {
namespace {

class SingleProcess : public Collective {
 public:
  const WorldLayout& layout() const override { return layout_; }
  bool distributed() const override { return false; }
  Completion start_all_reduce(const at::Tensor&) override { return [] {}; }
  std::vector<double> all_reduce(const std::vector<double>& values, Reduction) override { return values; }
  void broadcast(const at::Tensor&) override {}

 private:
  WorldLayout layout_;
};

}  // namespace

std::vector<std::vector<double>> Collective::all_gather(const std::vector<double>& values) {
  if (!distributed()) return {values};
  const auto world = static_cast<size_t>(layout().world_size);
  const auto rank = static_cast<size_t>(layout().rank);
  std::vector<double> lengths(world, 0.0);
  lengths[rank] = static_cast<double>(values.size());
  lengths = all_reduce(lengths, Reduction::sum);
  std::vector<size_t> offsets(world + 1, 0);
  for (size_t r = 0; r < world; ++r) offsets[r + 1] = offsets[r] + static_cast<size_t>(lengths[r]);
  std::vector<double> placed(offsets[world], 0.0);
  std::copy(values.begin(), values.end(), placed.begin() + static_cast<std::ptrdiff_t>(offsets[rank]));
  placed = all_reduce(placed, Reduction::sum);
  std::vector<std::vector<double>> gathered;
  for (size_t r = 0; r < world; ++r) {
    gathered.emplace_back(placed.begin() + static_cast<std::ptrdiff_t>(offsets[r]),
                          placed.begin() + static_cast<std::ptrdiff_t>(offsets[r + 1]));
  }
  return gathered;
}

Collective& single_process() {
  static SingleProcess instance;
  return instance;
}

}  // namespace trainer
