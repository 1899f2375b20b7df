#include "dist/collective.h"

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

Collective& single_process() {
  static SingleProcess instance;
  return instance;
}

}  // namespace trainer
