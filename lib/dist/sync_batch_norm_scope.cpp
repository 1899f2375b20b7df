#include "dist/sync_batch_norm_scope.h"

namespace trainer {
namespace {

class CollectiveSum : public RankSum {
 public:
  explicit CollectiveSum(Collective& collective) : collective_(collective) {}
  void sum_in_place(const at::Tensor& tensor) override { collective_.all_reduce(tensor); }

 private:
  Collective& collective_;
};

void set_rank_sums(torch::nn::Module& module, RankSum* rank_sum) {
  for (const auto& child : module.modules(/*include_self=*/true)) {
    if (auto* norm = child->as<SyncBatchNorm2dImpl>()) norm->set_rank_sum(rank_sum);
  }
}

}  // namespace

SyncBatchNormScope::SyncBatchNormScope(torch::nn::Module& module, Collective& collective) : module_(module) {
  if (!collective.distributed()) return;
  rank_sum_ = std::make_unique<CollectiveSum>(collective);
  set_rank_sums(module_, rank_sum_.get());
}

SyncBatchNormScope::~SyncBatchNormScope() {
  if (rank_sum_) set_rank_sums(module_, nullptr);
}

}  // namespace trainer
