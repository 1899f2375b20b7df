// A tiny, fast task for `trainer smoke` (R24) and the engine tests: a small conv net without
// BatchNorm learning labels from a fixed random teacher on random 8x8 images.
#pragma once
#include <memory>

#include "engine/task.h"
#include "tasks/smoke_validator.h"

namespace trainer {

class SmokeNetImpl : public torch::nn::Module {
 public:
  SmokeNetImpl(int64_t classes);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::Conv2d conv{nullptr};
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(SmokeNet);

// Its loss is capture-safe; the split lets the engine tests graph it the way OCR is graphed.
class SmokeTask : public Task, public TaskTraining, public LossSplit {
 public:
  SmokeTask(int64_t train_samples, uint64_t seed);

  std::string name() const override { return "smoke"; }
  torch::nn::Module& model() override { return *model_; }
  int64_t classes() const override { return kClasses; }
  TaskTraining& training() override { return *this; }
  Validator& validator() override { return *validator_; }

  const std::vector<size_t>& train_indices() const override { return indices_; }
  Loader::Collate train_collate(uint64_t seed) const override;
  std::vector<std::string> loss_names() const override { return {"loss"}; }
  LossOutput loss(const Batch& batch) override;
  LossSplit* loss_split() override { return this; }
  torch::Tensor model_output(const Batch& batch) override { return model_->forward(batch.input); }
  LossOutput loss_of_output(const torch::Tensor& logits, const Batch& batch) override;

  // The samples with the given indices as one batch (CPU).
  Batch batch_of(const std::vector<size_t>& indices) const;

 private:
  static constexpr int64_t kClasses = 4;
  torch::Tensor images_;
  torch::Tensor labels_;
  torch::Tensor val_images_;
  torch::Tensor val_labels_;
  std::vector<size_t> indices_;
  SmokeNet model_{nullptr};
  std::unique_ptr<SmokeValidator> validator_;
  friend class SmokeValidator;
};

}  // namespace trainer
