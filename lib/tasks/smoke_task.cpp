#include "tasks/smoke_task.h"

namespace trainer {
namespace {

constexpr int64_t kSide = 8;
constexpr int64_t kValidationSamples = 256;

}  // namespace

SmokeNetImpl::SmokeNetImpl(int64_t classes) {
  conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 8, 3).padding(1)));
  fc = register_module("fc", torch::nn::Linear(8 * (kSide / 2) * (kSide / 2), classes));
}

torch::Tensor SmokeNetImpl::forward(const torch::Tensor& x) {
  return fc->forward(torch::max_pool2d(torch::relu(conv->forward(x)), 2).flatten(1));
}

SmokeTask::SmokeTask(int64_t train_samples, uint64_t seed) : validator_(std::make_unique<SmokeValidator>(*this)) {
  torch::manual_seed(seed);
  const torch::Tensor teacher = torch::randn({kSide * kSide, kClasses});
  images_ = torch::randn({train_samples, 1, kSide, kSide});
  labels_ = images_.flatten(1).matmul(teacher).argmax(1);
  val_images_ = torch::randn({kValidationSamples, 1, kSide, kSide});
  val_labels_ = val_images_.flatten(1).matmul(teacher).argmax(1);
  indices_.resize(static_cast<size_t>(train_samples));
  for (size_t i = 0; i < indices_.size(); ++i) indices_[i] = i;
  model_ = SmokeNet(kClasses);
}

Batch SmokeTask::batch_of(const std::vector<size_t>& indices) const {
  std::vector<int64_t> rows(indices.begin(), indices.end());
  const torch::Tensor index = torch::tensor(rows, torch::kLong);
  Batch batch;
  batch.input = images_.index_select(0, index);
  batch.target = labels_.index_select(0, index);
  batch.size = static_cast<int64_t>(rows.size());
  return batch;
}

Loader::Collate SmokeTask::train_collate(uint64_t) const {
  return [this](const std::vector<size_t>& indices, int64_t) { return batch_of(indices); };
}

LossOutput SmokeTask::loss(const Batch& batch) { return loss_of_output(model_output(batch), batch); }

LossOutput SmokeTask::loss_of_output(const torch::Tensor& logits, const Batch& batch) {
  const torch::Tensor total = torch::nn::functional::cross_entropy(
      logits.to(torch::kFloat), batch.target, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum));
  return {total, total.detach().reshape({1})};
}

}  // namespace trainer
