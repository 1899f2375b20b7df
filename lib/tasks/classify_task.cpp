#include "tasks/classify_task.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iterator>

#include "data/classify/classify_pixel_cache.h"
#include "data/classify/classify_transform.h"
#include "data/classify/image_folder.h"
#include "data/classify/open_dataset.h"
#include "data/image_files.h"
#include "data/sampler.h"
#include "families/model_family.h"
#include "plot/batch_plot.h"
#include "tasks/head_classes.h"
#include "tasks/same_classes.h"
#include "util/error.h"

namespace trainer {

namespace fs = std::filesystem;

ClassifyTask::ClassifyTask(const SharedTaskSettings& shared, const ClassifySettings& classify, DataSplits splits,
                           const ModelCard* card)
    : shared_(shared), classify_(classify) {
  if (splits != DataSplits::none)
    val_ = open_classify_dataset(shared.run.data, Split::val, shared.data.max_bad_fraction);
  if (splits == DataSplits::train_and_val) {
    train_ = open_classify_dataset(shared.run.data, Split::train, shared.data.max_bad_fraction);
    if (train_->class_names() != val_->class_names()) {
      throw UserError(shared.run.data + ": the train and val splits have different classes");
    }
    train_indices_ = subset_indices(train_->size(), shared.data.fraction, static_cast<uint64_t>(shared.run.seed));
  }
  if (card == nullptr) {
    take_data_facts();
  } else {
    class_names_ = card->labels;
    channels_ = card->channels;
    normalization_ = card->normalization;
    imgsz_ = shared.data.imgsz.value_or(card->height);
    if (val_) {
      require_same_classes(shared.run.data, with_unused_classes(val_->class_names(), class_names_.size()),
                           class_names_);
      if (val_->channels() != channels_) {
        throw UserError(fmt::format("data={} holds {}-channel images, the model takes {}", shared.run.data,
                                    val_->channels(), channels_));
      }
    }
  }
  apply_image_cache();
  validator_ = std::make_unique<ClassifyValidator>(*this);
  torch::manual_seed(static_cast<uint64_t>(shared.run.seed));
  model_ = build_logits_model(
      {shared.run.model, channels_, classes(), shared.run.norm, nullptr, shared.run.dropout, shared.run.drop_path,
       shared.run.model_definition},
      TaskKind::classify);
}

void ClassifyTask::take_data_facts() {
  class_names_ = head_class_names(shared_.run.data, val_->class_names(), classify_.num_classes);
  channels_ = val_->channels();
  normalization_ = val_->normalization();
  imgsz_ = shared_.data.imgsz.value_or(val_->native_size());
}

ClassifyAugment ClassifyTask::train_augment() const {
  ClassifyAugment augment;
  augment.imgsz = imgsz_;
  augment.crop_pad = classify_.crop_pad;
  augment.fliplr = shared_.data.fliplr;
  augment.train = true;
  augment.scale = shared_.data.scale;
  augment.erasing = {classify_.erasing, classify_.erasing_mode, classify_.erasing_count};
  augment.auto_augment = {classify_.auto_augment, classify_.randaugment_ops, classify_.randaugment_magnitude,
                          classify_.timm_rand};
  // Ultralytics' mapping of its HSV gains onto ColorJitter, which turns the hue half a turn at most.
  augment.color_jitter = {shared_.data.hsv_v, shared_.data.hsv_v, shared_.data.hsv_s, std::min(shared_.data.hsv_h, 0.5)};
  augment.mix = {classify_.mixup_alpha, classify_.cutmix_alpha, classify_.mixup_prob, classify_.mixup_switch_prob,
                 shared_.data.label_smoothing, classes()};
  return augment;
}

Loader::Collate ClassifyTask::train_collate(uint64_t seed, ClassifyStageTimes* times) const {
  TORCH_INTERNAL_ASSERT(train_, "train_collate without a training split");
  return make_classify_collate(*train_, train_augment(), normalization_, seed, times);
}

// After imgsz is known: the copies are sized for the crops of each split.
void ClassifyTask::apply_image_cache() {
  if (shared_.data.cache == ImageCacheMode::ram) {
    spdlog::warn("cache=ram: not offered for classification (Ultralytics turns it off too); cache=disk keeps "
                 "resized copies in one file per split");
  }
  if (shared_.data.cache != ImageCacheMode::disk || !train_) return;
  const PixelCacheSettings settings{shared_.data.cache_dir, int(shared_.data.cache_quality)};
  const fs::path root(shared_.run.data);
  train_ = with_pixel_cache(std::move(train_), image_folder_split(root, Split::train), false,
                            cached_short_side(train_augment()), settings);
  val_ = with_pixel_cache(std::move(val_), image_folder_split(root, Split::val), true,
                          cached_short_side(evaluation_augment()), settings);
}

LossOutput ClassifyTask::loss(const Batch& batch) {
  // The first thing of the step: pixels become the model's input where the step runs.
  const torch::Tensor logits = model_.forward(normalized_input(batch.input, normalization_)).to(torch::kFloat);
  // Summed, in fp32 even under autocast: the engine divides by the samples of the whole group.
  // Validation keeps the plain loss (as timm does), so its figure compares across smoothings.
  // Mixed batches carry class probabilities with the smoothing already folded in.
  const torch::Tensor total =
      batch.target.is_floating_point()
          ? -(batch.target * torch::log_softmax(logits, 1)).sum()
          : torch::nn::functional::cross_entropy(
                logits, batch.target,
                torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum).label_smoothing(
                    shared_.data.label_smoothing));
  return {total, total.detach().reshape({1})};
}

void ClassifyTask::plot_batch(const Batch& batch, const std::filesystem::path& path) const {
  const torch::Tensor target = batch.target.cpu();
  const torch::Tensor input = normalized_input(batch.input.cpu(), normalization_);
  std::vector<PlottedSample> samples;
  for (int64_t b = 0; b < batch.size; ++b) {
    std::string caption;
    if (target.is_floating_point()) {
      const auto [share, cls] = target[b].max(0);
      caption = fmt::format("{} {:.2f}", class_names_.at(static_cast<size_t>(cls.item<int64_t>())), share.item<double>());
    } else {
      caption = class_names_.at(static_cast<size_t>(target[b].item<int64_t>()));
    }
    samples.push_back({input_to_rgb(input[b], normalization_.mean, normalization_.std), {}, caption});
  }
  draw_batch_grid(samples, path);
}

ClassifyAugment ClassifyTask::evaluation_augment() const {
  ClassifyAugment augment;
  augment.imgsz = imgsz_;
  augment.crop_pad = 0;
  augment.fliplr = 0;
  augment.train = false;
  augment.crop_fraction = classify_.crop_fraction;
  return augment;
}

ModelCard ClassifyTask::model_card() const {
  return {name(), shared_.run.model, class_names_, channels_, imgsz_, imgsz_, "", normalization_,
          shared_.run.model_definition};
}

std::vector<std::string> ClassifyTask::predict(const std::vector<std::string>& sources, const torch::Device& device,
                                               const PredictOptions& options) {
  const ImageFiles files(sources, channels_, class_names_, imgsz_, normalization_);
  const Loader::Collate collate = make_classify_collate(files, evaluation_augment(), normalization_, 0);
  const int64_t k = std::min<int64_t>(options.top_k, classes());
  const bool was_training = model_.module->is_training();
  model_.module->eval();
  c10::InferenceMode inference;
  std::vector<std::string> predictions;
  for (size_t first = 0; first < files.size(); first += static_cast<size_t>(shared_.schedule.batch)) {
    std::vector<size_t> indices;
    for (size_t i = first; i < std::min(files.size(), first + static_cast<size_t>(shared_.schedule.batch)); ++i) {
      indices.push_back(i);
    }
    const Batch batch = collate(indices, 0);
    const auto [probabilities, classes_ranked] =
        torch::softmax(logits(batch.input.to(device)).to(torch::kFloat), 1).topk(k, 1);
    const torch::Tensor p = probabilities.cpu();
    const torch::Tensor c = classes_ranked.cpu();
    for (int64_t row = 0; row < batch.size; ++row) {
      std::string line = files.path(indices[static_cast<size_t>(row)]) + ":";
      for (int64_t j = 0; j < k; ++j) {
        line += fmt::format(" {} {:.{}f}", class_names_.at(static_cast<size_t>(c[row][j].item<int64_t>())),
                            p[row][j].item<double>(), options.digits);
      }
      predictions.push_back(std::move(line));
    }
  }
  if (was_training) model_.module->train();
  return predictions;
}

}  // namespace trainer
