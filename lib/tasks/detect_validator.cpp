#include "tasks/detect_validator.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "data/detect/detect_collate.h"
#include "data/sampler.h"
#include "tasks/confusion_counts.h"
#include "tasks/detect_task.h"

namespace trainer {
namespace {

// Everything counts for mAP when `conf` is unset, as in Ultralytics.
constexpr double kValidationConfidence = 0.001;
// The confusion matrix matches likely objects (DetectTask::kPredictConfidence unless `conf` is
// set) at Ultralytics' IoU 0.45.
constexpr double kConfusionIou = 0.45;

// Ground truth of one image in its own pixels: xyxy [M, 4] and classes [M].
std::pair<torch::Tensor, torch::Tensor> ground_truth(const DetectDataset& data, size_t index) {
  const std::vector<PixelBox> boxes = to_pixel_boxes(data.boxes(index), data.original_size(index));
  torch::Tensor xyxy = torch::empty({static_cast<int64_t>(boxes.size()), 4});
  torch::Tensor classes = torch::empty({static_cast<int64_t>(boxes.size())}, torch::kLong);
  for (size_t i = 0; i < boxes.size(); ++i) {
    const auto row = static_cast<int64_t>(i);
    xyxy[row] = torch::tensor({boxes[i].x1, boxes[i].y1, boxes[i].x2, boxes[i].y2});
    classes[row] = boxes[i].cls;
  }
  return {xyxy, classes};
}

}  // namespace

DetectValidator::DetectValidator(DetectTask& task)
    : task_(task), confusion_((task.config_.names.size() + 1) * (task.config_.names.size() + 1)) {}

std::vector<std::string> DetectValidator::metric_names() const {
  return {"val/box_loss", "val/cls_loss", "val/dfl_loss", "precision", "recall", "mAP50", "mAP50-95"};
}

void DetectValidator::validate_shard(const torch::Device& device, const Shard& shard) {
  // One batch shape for all of validation (R28): twice the training micro-batch, the last padded.
  const int64_t batch_size = validation_batch(task_.shared_.schedule);
  std::vector<size_t> order(task_.val_->size());
  std::iota(order.begin(), order.end(), size_t{0});
  const auto batches = shard_batches(make_batches(order, batch_size, false), shard);
  const DetectAugment evaluation = task_.augment(false);
  Loader loader(Loader::for_device(make_detect_collate(*task_.val_, evaluation, 0, {}, task_.val_memo_.get()), device),
                task_.shared_.data.workers, task_.shared_.data.prefetch);
  loader.start_epoch(batches, 0);

  torch::Tensor loss_sums = torch::zeros({3}, torch::TensorOptions().device(device));
  DetectionConfusion confusion(
      task_.classes(), task_.detect_.conf.value_or(DetectTask::kPredictConfidence), kConfusionIou);
  for_each_validation_batch(
      *task_.model_.module, loader, batches.size(), batch_size, device,
      [&](size_t position, const Batch& batch, const torch::Tensor& pixels) {
        const torch::Tensor input = DetectTask::model_input(pixels);
        torch::Tensor predicted;
        if (task_.deployed_) {
          // The exported output has no head logits for the loss.
          predicted = task_.predictions(input).narrow(0, 0, batch.size);
        } else {
          std::vector<torch::Tensor> levels = task_.model_.forward(input);
          for (auto& level : levels) level = level.narrow(0, 0, batch.size);
          loss_sums += task_.loss_of(levels, batch.target).parts.to(torch::kFloat);
          predicted = task_.decoded(levels);
        }
        const std::vector<torch::Tensor> found =
            task_.detections(predicted, task_.detect_.conf.value_or(kValidationConfidence));
        const std::vector<size_t>& indices = batches[position];
        for (size_t row = 0; row < indices.size(); ++row) {
          const size_t index = indices[row];
          torch::Tensor boxes = found[row].clone();
          const Letterbox geometry = letterbox_geometry(task_.val_->original_size(index),
                                                        task_.imgsz_, evaluation.scaleup);
          boxes.narrow(1, 0, 4).copy_(geometry.to_original(boxes.narrow(1, 0, 4)));
          const auto [gt_boxes, gt_classes] = ground_truth(*task_.val_, index);
          detections_.add_image(boxes, gt_boxes, gt_classes);
          confusion.add_image(boxes, gt_boxes, gt_classes);
        }
      });

  const torch::Tensor losses = loss_sums.cpu().to(torch::kDouble);
  box_loss_.add(losses[0].item<double>());
  cls_loss_.add(losses[1].item<double>());
  dfl_loss_.add(losses[2].item<double>());
  for (const auto& indices : batches) images_.add(static_cast<double>(indices.size()));
  confusion_.add(confusion.counts());
}

Metrics DetectValidator::metrics() const {
  ConfusionMatrix confusion{task_.config_.names, confusion_.value()};
  confusion.names.emplace_back("background");
  const DetectionSummary summary = detections_.summarize();
  const double images = std::max(images_.value(), 1.0);
  Metrics result;
  if (!task_.deployed_) {
    result.values = {{"val/box_loss", box_loss_.value() / images},
                     {"val/cls_loss", cls_loss_.value() / images},
                     {"val/dfl_loss", dfl_loss_.value() / images}};
  }
  result.values.insert(result.values.end(), {{"precision", summary.precision},
                                             {"recall", summary.recall},
                                             {"mAP50", summary.map50},
                                             {"mAP50-95", summary.map50_95}});
  result.fitness = 0.1 * summary.map50 + 0.9 * summary.map50_95;
  result.confusion = std::move(confusion);
  if (!summary.classes.empty())
    result.curves = detection_curve_charts(summary, task_.config_.names);
  // Ultralytics' table: instances, P and R at the best-F1 confidence, AP; the means first.
  const auto row = [](const std::string& name, int64_t instances, double p, double r, double ap50,
                      double ap50_95) {
    return fmt::format("{:<16} {:>9} {:>7.4f} {:>7.4f} {:>8.4f} {:>9.4f}", name, instances, p, r,
                       ap50, ap50_95);
  };
  result.details.push_back(fmt::format("{:<16} {:>9} {:>7} {:>7} {:>8} {:>9}", "class", "instances",
                                       "P", "R", "AP50", "AP50-95"));
  result.details.push_back(
      row("all", std::accumulate(summary.instances.begin(), summary.instances.end(), int64_t{0}),
          summary.precision, summary.recall, summary.map50, summary.map50_95));
  for (size_t i = 0; i < summary.classes.size(); ++i) {
    result.details.push_back(row(task_.config_.names.at(static_cast<size_t>(summary.classes[i])),
                                 summary.instances[i], summary.class_precision[i],
                                 summary.class_recall[i], summary.ap50[i], summary.ap50_95[i]));
  }
  return result;
}

}  // namespace trainer
