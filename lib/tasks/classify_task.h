// Image classification: a ResNet, cross-entropy, top-1/top-5 accuracy.
#pragma once
#include <memory>

#include "config/settings.h"
#include "data/classify/classify_transform.h"
#include "data/image_dataset.h"
#include "data/normalized_input.h"
#include "engine/deployable.h"
#include "engine/task.h"
#include "families/model_family.h"
#include "tasks/classify_validator.h"

namespace trainer {

class ClassifyTask : public Task, public TaskTraining, public Predictor, public Deployable {
 public:
  // Opens `splits` of the data and builds the model. With a saved model's `card`, the class names,
  // channels and normalisation are the card's, and a validation split must have the same classes.
  ClassifyTask(const SharedTaskSettings& shared, const ClassifySettings& classify,
               DataSplits splits = DataSplits::train_and_val, const ModelCard* card = nullptr);

  std::string name() const override { return "classify"; }
  torch::nn::Module& model() override { return *model_.module; }
  int64_t classes() const override { return static_cast<int64_t>(class_names_.size()); }
  TaskTraining& training() override { return *this; }
  Validator& validator() override { return *validator_; }
  Predictor* predictor() override { return this; }
  Deployable* deployment() override { return this; }

  const std::vector<size_t>& train_indices() const override { return train_indices_; }
  Loader::Collate train_collate(uint64_t seed) const override { return train_collate(seed, nullptr); }
  // The same, gathering where its time goes into `times` (bench_loader --stages).
  Loader::Collate train_collate(uint64_t seed, ClassifyStageTimes* times) const;
  std::vector<std::string> loss_names() const override { return {"loss"}; }
  LossOutput loss(const Batch& batch) override;
  // Each sample with its class name (a mixed sample: its larger class and that class's share).
  void plot_batch(const Batch& batch, const std::filesystem::path& path) const override;

  // "path: class probability …", best first, with the validation preprocessing.
  std::vector<std::string> predict(const std::vector<std::string>& sources, const torch::Device& device,
                                   const PredictOptions& options) override;
  ModelCard model_card() const override;
  onnx_export::ModelGraph export_graph() const override { return model_.onnx_graph; }

 private:
  // Class names, channels, normalisation and native size from the validation split.
  void take_data_facts();
  void apply_image_cache();
  ClassifyAugment train_augment() const;
  ClassifyAugment evaluation_augment() const;
  // The logits of an evaluation input (pixels or normalised), from the deployed copy when there is one.
  torch::Tensor logits(const torch::Tensor& input) {
    const torch::Tensor normalised = normalized_input(input, normalization_);
    return deployed_ ? deployed_->run(normalised) : model_.forward(normalised);
  }
  SharedTaskSettings shared_;
  ClassifySettings classify_;
  std::unique_ptr<ImageDataset> train_;
  std::unique_ptr<ImageDataset> val_;
  std::vector<std::string> class_names_;
  std::vector<size_t> train_indices_;
  Normalization normalization_;
  int64_t channels_ = 3;
  int64_t imgsz_ = 0;
  LogitsModel model_;
  std::unique_ptr<ClassifyValidator> validator_;
  friend class ClassifyValidator;
};

}  // namespace trainer
