// Text recognition as EasyOCR trains it (R19): the CRNN, CTC loss (or with Prediction Attn,
// EasyOCR's cross-entropy of the teacher-forced decoder), greedy decoding, exact-match accuracy,
// norm_ED and CER; batches bucketed by width so each has one shape.
#pragma once
#include <memory>

#include "data/ocr/bucket_sampler.h"
#include "data/ocr/charset.h"
#include "data/ocr/ocr_dataset.h"
#include "data/ocr/text_line_collate.h"
#include "engine/deployable.h"
#include "engine/task.h"
#include "families/model_family.h"
#include "tasks/ctc_decoder.h"
#include "tasks/ocr_validator.h"

namespace trainer {

class OcrTask : public Task, public TaskTraining, public LossSplit, public Predictor, public Deployable {
 public:
  // data = a root with train/ and val/, each holding EasyOCR label folders, of which `splits`
  // are opened. The character set needs no data once pinned into the recipe (pin_derived_settings),
  // as a saved model's is.
  OcrTask(const SharedTaskSettings& shared, const OcrSettings& ocr, DataSplits splits = DataSplits::train_and_val);

  std::string name() const override { return "ocr"; }
  torch::nn::Module& model() override { return *model_.module; }
  // The recognizer's output classes: the charset's, plus [s] with Attn.
  int64_t classes() const override;
  TaskTraining& training() override { return *this; }
  Validator& validator() override { return *validator_; }
  Predictor* predictor() override { return this; }
  Deployable* deployment() override { return this; }
  void pin_derived_settings(Settings& settings) const override;

  const std::vector<size_t>& train_indices() const override { return train_indices_; }
  // Width-bucketed batches; with batch_ratio, the select_data groups mixed in proportion.
  std::vector<std::vector<size_t>> epoch_batches(uint64_t seed, int64_t epoch, int64_t batch) const override;
  Loader::Collate train_collate(uint64_t seed) const override;
  std::vector<std::string> loss_names() const override { return {attention() ? "attn" : "ctc"}; }
  LossOutput loss(const Batch& batch) override;
  // Each line at its bucket's width with its label.
  void plot_batch(const Batch& batch, const std::filesystem::path& path) const override;
  // CUDA's CTC loss copies the target lengths to the host: graphs hold the CRNN, not the loss.
  bool loss_capture_safe() const override { return false; }
  LossSplit* loss_split() override { return this; }
  torch::Tensor model_output(const Batch& batch) override;
  LossOutput loss_of_output(const torch::Tensor& logits, const Batch& batch) override;
  std::vector<int64_t> dynamic_input_dims() const override { return {3}; }  // width buckets

  // "path: text (confidence)" per image.
  std::vector<std::string> predict(const std::vector<std::string>& sources, const torch::Device& device,
                                   const PredictOptions& options) override;
  ModelCard model_card() const override;
  onnx_export::ModelGraph export_graph() const override { return model_.onnx_graph; }

 private:
  // A batch's input as the model takes it: pixels normalised to [-1, 1] where the step runs (a
  // float input is normalised already).
  static torch::Tensor model_input(const torch::Tensor& input);
  // The per-frame logits of an evaluation input (pixels or normalised), from the deployed copy
  // when there is one.
  torch::Tensor logits(const torch::Tensor& input) {
    const torch::Tensor normalised = model_input(input);
    return deployed_ ? deployed_->run(normalised) : model_.forward(normalised);
  }
  bool attention() const { return ocr_.prediction == OcrPrediction::attn; }
  // The batch's labels as the Attn decoder reads and predicts them (tasks/attn_text.h).
  torch::Tensor attn_labels(const Batch& batch) const;
  // The evaluation loss summed over the batch: the plain CTC, or Attn's cross-entropy of the greedy
  // steps.
  torch::Tensor evaluation_loss(const torch::Tensor& logits, const Batch& batch) const;
  std::vector<DecodedText> decode(const torch::Tensor& logits) const;

  SharedTaskSettings shared_;
  OcrSettings ocr_;
  std::unique_ptr<Charset> charset_;
  std::unique_ptr<OcrDataset> train_;
  std::unique_ptr<OcrDataset> val_;
  std::vector<size_t> train_indices_;
  BucketSampling sampling_;
  std::vector<int64_t> val_buckets_;
  TextLineShape shape_;
  LogitsModel model_;
  std::unique_ptr<OcrValidator> validator_;
  friend class OcrValidator;
};

}  // namespace trainer
