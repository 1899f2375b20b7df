// Object detection as Ultralytics trains YOLOv8 (R18): its data.yaml and label format, mosaic and
// perspective augmentation into a fixed letterbox shape, the v8 loss on padded targets, and
// validation with class-aware NMS and COCO mAP.
#pragma once
#include <memory>

#include "data/detect/detect_augment.h"
#include "data/detect/detect_dataset.h"
#include "data/detect/detect_dataset_config.h"
#include "data/detect/image_memo.h"
#include "engine/deployable.h"
#include "engine/task.h"
#include "families/model_family.h"
#include "tasks/detect_validator.h"
#include "tasks/detection_loss.h"
#include "tasks/end_to_end_loss.h"

namespace trainer {

class DetectTask : public Task, public TaskTraining, public Predictor, public Deployable {
 public:
  // data = an Ultralytics data.yaml, of which `splits` are opened. With a saved model's `card`,
  // the class names are the card's, and a validation split must have the same classes.
  DetectTask(const SharedTaskSettings& shared, const DetectSettings& detect,
             DataSplits splits = DataSplits::train_and_val, const ModelCard* card = nullptr);

  std::string name() const override { return "detect"; }
  torch::nn::Module& model() override { return *model_.module; }
  int64_t classes() const override { return static_cast<int64_t>(config_.names.size()); }
  TaskTraining& training() override { return *this; }
  Validator& validator() override { return *validator_; }
  Predictor* predictor() override { return this; }
  Deployable* deployment() override { return this; }

  const std::vector<size_t>& train_indices() const override { return train_indices_; }
  Loader::Collate train_collate(uint64_t seed) const override;
  std::vector<std::string> loss_names() const override { return DetectionLoss::part_names(); }
  LossOutput loss(const Batch& batch) override;
  void begin_epoch(int64_t epoch) override;
  // The letterboxed samples with their target boxes and class names.
  void plot_batch(const Batch& batch, const std::filesystem::path& path) const override;
  void plot_labels(const std::filesystem::path& path) const override;
  // close_mosaic counts back from the run's epochs, derived ones (updates=) included.
  void set_planned_epochs(int64_t epochs) override;
  // Ultralytics back-propagates each batch's loss items times its batch size and accumulates, so
  // an update's loss is the sum over the group's images; keeping that sum lets lr0, weight_decay
  // and grad_clip of an Ultralytics recipe mean the same here.
  double loss_divisor(int64_t) const override { return 1.0; }

  // Detections per image, in the image's own pixels; annotated copies and predictions.json are
  // written to <project>/detect/predict[N]/.
  std::vector<std::string> predict(const std::vector<std::string>& sources, const torch::Device& device,
                                   const PredictOptions& options) override;
  ModelCard model_card() const override;
  // The model's graph with the branch and max_det chosen for use (end2end, max_det).
  onnx_export::ModelGraph export_graph() const override;

 private:
  // Ultralytics' confidence threshold when `conf` is unset for what predict shows and what the
  // validation's confusion matrix counts: likely objects.
  static constexpr double kPredictConfidence = 0.25;

  // A batch's input as the model takes it: pixels scaled by 1 / 255 where the step runs (a float
  // input is scaled already).
  static torch::Tensor model_input(const torch::Tensor& input);
  // The data.yaml's classes and its validation (and training) images.
  void open_data(bool with_train_split);
  DetectAugment augment(bool train) const;
  // Sets one_to_one_ from `end2end` and what the task was made for; end2end=true on a model
  // without that branch is a UserError.
  void choose_branch(DataSplits splits);
  // cache=ram: the memos, unless the images would crowd the available memory (then a warning).
  void make_memos();
  // The loss of the head's outputs: the v8 loss, or YOLO26's end-to-end loss for its two branches.
  LossOutput loss_of(const std::vector<torch::Tensor>& levels, const torch::Tensor& targets) const;
  // The head's outputs -> boxes (xyxy) and scores [B, 4 + classes, anchors] in letterbox pixels;
  // of an end-to-end head, its one-to-one branch's.
  torch::Tensor decoded(const std::vector<torch::Tensor>& levels) const;
  // The same for an evaluation input, from the deployed copy when there is one.
  torch::Tensor predictions(const torch::Tensor& input);
  // Boxes and scores [B, 4 + classes, anchors] -> per image [N, 6] after NMS, or for an
  // end-to-end head its top detections without NMS.
  std::vector<torch::Tensor> detections(const torch::Tensor& predictions, double confidence) const;

  SharedTaskSettings shared_;
  DetectSettings detect_;
  DetectDataConfig config_;
  int64_t imgsz_ = 640;
  std::unique_ptr<DetectDataset> train_;
  std::unique_ptr<DetectDataset> val_;
  // cache=ram: the decoded images of each split, kept across epochs; null when caching is off.
  std::unique_ptr<ImageMemo> train_memo_;
  std::unique_ptr<ImageMemo> val_memo_;
  std::vector<size_t> train_indices_;
  DetectorModel model_;
  bool one_to_one_ = false;  ///< detections from an end-to-end head's one-to-one branch, without NMS
  DetectionLossOptions loss_options_;
  std::unique_ptr<DetectionLoss> loss_;                    ///< null for an end-to-end head
  std::unique_ptr<EndToEndDetectionLoss> end_to_end_loss_;  ///< that head's; else null
  std::unique_ptr<DetectValidator> validator_;
  friend class DetectValidator;
};

}  // namespace trainer
