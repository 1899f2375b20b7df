#include "tasks/ocr_task.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <numeric>

#include "data/image_files.h"
#include "data/normalized_input.h"
#include "data/ocr/contrast_stretch.h"
#include "data/read_image.h"
#include "data/sampler.h"
#include "families/model_family.h"
#include "plot/batch_plot.h"
#include "tasks/attn_text.h"
#include "tasks/ctc_decoder.h"
#include "tasks/ctc_loss.h"
#include "util/error.h"
#include "util/utf8.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

// The training or validation root: EasyOCR's train_data / valid_data when given, else the split's
// folder under data.
fs::path split_root(const std::string& data, const OcrSettings& ocr, bool train) {
  const std::string& own_root = train ? ocr.train_data : ocr.valid_data;
  std::error_code error;
  if (!own_root.empty()) {
    if (!fs::is_directory(own_root, error)) {
      throw UserError(std::string(train ? "train_data=" : "valid_data=") + own_root +
                      " is not a folder; it holds folders of images with a labels.csv (EasyOCR's format)");
    }
    return own_root;
  }
  const char* split = train ? "train" : "val";
  const fs::path root = fs::path(data) / split;
  if (!fs::is_directory(root, error)) {
    throw UserError("data=" + data + " has no " + split +
                    "/ folder; task=ocr expects a root with train/ "
                    "and val/ (or the roots train_data and valid_data), each holding folders of images with a "
                    "labels.csv (EasyOCR's format). The embedded sets are made by `trainer data digits` and "
                    "`trainer data printed`");
  }
  return root;
}

OcrDataOptions data_options(const OcrSettings& ocr, bool train, double max_dropped_fraction) {
  OcrDataOptions options;
  options.img_h = ocr.img_h;
  options.img_w = ocr.img_w;
  options.channels = ocr.rgb ? 3 : 1;
  options.batch_max_length = ocr.batch_max_length;
  options.sensitive = ocr.sensitive;
  options.data_filtering_off = ocr.data_filtering_off;
  options.contrast_adjust = ocr.contrast_adjust;
  options.max_dropped_fraction = max_dropped_fraction;
  if (train) options.select_data = ocr.select_data;
  return options;
}

std::u32string charset_characters(const std::string& data, const OcrSettings& ocr) {
  constexpr double kKeepAll = 1.0;  // the character set is being made: no label is dropped for it
  if (ocr.charset.empty()) {
    return decode_utf8(ocr.number + ocr.symbol + ocr.lang_char, "keys number + symbol + lang_char");
  }
  if (ocr.charset == "labels" || ocr.charset == "train_labels") {
    // EasyOCR's lang_char 'None' (train_labels): the training labels' characters as written. Our
    // labels: validation labels count too, so a character only they hold is scored as an error
    // instead of its lines being dropped from the measurement.
    const bool easyocr = ocr.charset == "train_labels";
    OcrDataOptions train = data_options(ocr, true, kKeepAll);
    train.sensitive = train.sensitive || easyocr;
    std::u32string characters = label_characters(split_root(data, ocr, true), train);
    if (!easyocr) characters += label_characters(split_root(data, ocr, false), data_options(ocr, false, kKeepAll));
    std::sort(characters.begin(), characters.end());
    characters.erase(std::unique(characters.begin(), characters.end()), characters.end());
    return characters;
  }
  return decode_utf8(ocr.charset, "key charset");
}

}  // namespace

OcrTask::OcrTask(const SharedTaskSettings& shared, const OcrSettings& ocr, DataSplits splits)
    : shared_(shared), ocr_(ocr), validator_(std::make_unique<OcrValidator>(*this)) {
  if (shared.run.model != "crnn") throw UserError("task=ocr trains model=crnn, got model=" + shared.run.model);
  charset_ = std::make_unique<Charset>(charset_characters(shared.run.data, ocr), ocr.charset.empty() ? "keys number + symbol + lang_char" : "key charset");
  shape_.img_h = ocr.img_h;
  shape_.img_w = ocr.img_w;
  shape_.bucket_widths = ocr_bucket_widths(ocr);
  shape_.max_label_length = ocr.batch_max_length;
  if (shape_.bucket_widths.front() < 8) {
    throw UserError("the narrowest OCR bucket is " + std::to_string(shape_.bucket_widths.front()) +
                    " px; the CRNN needs at least 8 (key buckets)");
  }

  const double max_dropped = shared.data.max_bad_fraction;
  if (splits != DataSplits::none) {
    val_ = std::make_unique<OcrDataset>(split_root(shared.run.data, ocr, false), *charset_,
                                        data_options(ocr, false, max_dropped));
    for (size_t i = 0; i < val_->size(); ++i) val_buckets_.push_back(bucket_of(shape_.bucket_widths, val_->width(i)));
  }
  if (splits == DataSplits::train_and_val) {
    train_ = std::make_unique<OcrDataset>(split_root(shared.run.data, ocr, true), *charset_,
                                          data_options(ocr, true, max_dropped));
    train_indices_ = subset_indices(train_->size(), shared.data.fraction, static_cast<uint64_t>(shared.run.seed));
    for (size_t i = 0; i < train_->size(); ++i) {
      sampling_.bucket.push_back(bucket_of(shape_.bucket_widths, train_->width(i)));
      sampling_.group.push_back(train_->group(i));
    }
    sampling_.group_ratio = ocr.batch_ratio;
    std::vector<int64_t> group_sizes(train_->group_names().size(), 0);
    for (size_t i : train_indices_) ++group_sizes[static_cast<size_t>(train_->group(i))];
    for (size_t g = 0; g < group_sizes.size(); ++g) {
      if (!sampling_.group_ratio.empty() && group_sizes[g] == 0) {
        throw UserError("select_data '" + train_->group_names()[g] + "' has no training samples left to draw from");
      }
      spdlog::info("ocr train: {} {} samples{}", train_->group_names()[g], group_sizes[g],
                   sampling_.group_ratio.empty() ? "" : fmt::format(" (batch_ratio {})", sampling_.group_ratio[g]));
    }
  }
  torch::manual_seed(static_cast<uint64_t>(shared.run.seed));
  model_ = build_logits_model({shared.run.model, ocr.rgb ? 3 : 1, classes(), shared.run.norm, &ocr, shared.run.dropout},
                              TaskKind::ocr);
}

int64_t OcrTask::classes() const {
  return attention() ? attn_classes(*charset_) : charset_->classes();
}

torch::Tensor OcrTask::attn_labels(const Batch& batch) const {
  return attn_text(batch.target, batch.target_lengths, ocr_.batch_max_length);
}

torch::Tensor OcrTask::model_input(const torch::Tensor& input) {
  const std::vector<double> half(static_cast<size_t>(input.size(1)), 0.5);  // EasyOCR: (x - 0.5) / 0.5
  return normalized_input(input, {half, half});
}

torch::Tensor OcrTask::model_output(const Batch& batch) {
  // The first thing of the step: pixels become the model's input where the step runs.
  const torch::Tensor input = model_input(batch.input);
  if (!attention()) return model_.forward(input);
  const torch::Tensor text = attn_labels(batch);
  return model_.teacher_forced(input, text.narrow(1, 0, text.size(1) - 1));
}

torch::Tensor OcrTask::evaluation_loss(const torch::Tensor& logits, const Batch& batch) const {
  if (attention()) return attn_loss_sum(logits, attn_labels(batch));
  return ctc_loss_sum(logits, batch.target, batch.target_lengths);
}

std::vector<DecodedText> OcrTask::decode(const torch::Tensor& logits) const {
  return attention() ? attn_decode(logits, *charset_) : greedy_decode(logits, *charset_);
}

std::vector<std::vector<size_t>> OcrTask::epoch_batches(uint64_t seed, int64_t epoch, int64_t batch) const {
  return bucket_batches(train_indices_, sampling_, seed, epoch, batch);
}

Loader::Collate OcrTask::train_collate(uint64_t seed) const {
  TORCH_INTERNAL_ASSERT(train_, "train_collate without a training split");
  TextLineAugment augment;
  augment.degrees = shared_.data.degrees;
  augment.shear = shared_.data.shear;
  augment.elastic = ocr_.elastic;
  return make_text_line_collate(*train_, *charset_, shape_, augment, seed);
}

LossOutput OcrTask::loss(const Batch& batch) { return loss_of_output(model_output(batch), batch); }

void OcrTask::plot_batch(const Batch& batch, const std::filesystem::path& path) const {
  const torch::Tensor labels = batch.target.cpu().contiguous();
  const torch::Tensor lengths = batch.target_lengths.cpu().contiguous();
  const std::vector<double> half(static_cast<size_t>(batch.input.size(1)), 0.5);  // (x - 0.5) / 0.5 undone
  const torch::Tensor input = model_input(batch.input.cpu());
  std::vector<PlottedSample> samples;
  for (int64_t b = 0; b < batch.size; ++b) {
    std::u32string text;
    for (int64_t i = 0; i < lengths[b].item<int64_t>(); ++i) text += charset_->character(labels[b][i].item<int64_t>());
    samples.push_back({input_to_rgb(input[b], half, half), {}, encode_utf8(text)});
  }
  draw_batch_grid(samples, path);
}

LossOutput OcrTask::loss_of_output(const torch::Tensor& logits, const Batch& batch) {
  const double smoothing = shared_.data.label_smoothing;
  const torch::Tensor total =
      attention() ? attn_loss_sum(logits, attn_labels(batch), smoothing)
                  : ctc_loss_sum(logits, batch.target, batch.target_lengths, smoothing);
  return {total, total.detach().reshape({1})};
}

void OcrTask::pin_derived_settings(Settings& settings) const { settings.ocr.charset = encode_utf8(charset_->characters()); }

ModelCard OcrTask::model_card() const {
  std::vector<std::string> characters;
  for (const char32_t character : charset_->characters())
    characters.push_back(encode_utf8(std::u32string(1, character)));
  const Normalization centred{std::vector<double>(static_cast<size_t>(model_.in_channels), 0.5),
                              std::vector<double>(static_cast<size_t>(model_.in_channels), 0.5)};
  return {name(), shared_.run.model, characters, model_.in_channels, ocr_.img_h, ocr_.img_w, "", centred};
}

std::vector<std::string> OcrTask::predict(const std::vector<std::string>& sources, const torch::Device& device,
                                          const PredictOptions& options) {
  const std::vector<std::string> paths = image_paths(sources);
  const int64_t channels = ocr_.rgb ? 3 : 1;
  std::vector<cv::Mat> images;
  std::vector<int64_t> buckets;
  for (const auto& path : paths) {
    images.push_back(stretch_contrast(read_image(path, channels), ocr_.contrast_adjust));
    buckets.push_back(bucket_of(shape_.bucket_widths, resized_width(images.back().size(), shape_.img_h, shape_.img_w)));
  }
  std::vector<size_t> all(paths.size());
  std::iota(all.begin(), all.end(), size_t{0});
  std::vector<std::string> lines(paths.size());
  const bool was_training = model_.module->is_training();
  model_.module->eval();
  c10::InferenceMode inference;
  for (const auto& indices : bucket_batches_in_order(all, buckets, shared_.schedule.batch)) {
    std::vector<cv::Mat> batch_images;
    for (size_t i : indices) batch_images.push_back(images[i]);
    const Batch batch = collate_text_lines(batch_images, nullptr, *charset_, shape_);
    const std::vector<DecodedText> decoded = decode(logits(batch.input.to(device)));
    for (size_t row = 0; row < indices.size(); ++row) {
      lines[indices[row]] = fmt::format("{}: {} ({:.{}f})", paths[indices[row]], encode_utf8(decoded[row].text),
                                        decoded[row].confidence, options.digits);
    }
  }
  if (was_training) model_.module->train();
  return lines;
}

}  // namespace trainer
