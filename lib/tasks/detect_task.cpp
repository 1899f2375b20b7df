#include "tasks/detect_task.h"

#include <fmt/format.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <spdlog/spdlog.h>

#include <array>
#include <filesystem>

#include "data/detect/detect_pixel_cache.h"
#include "data/detect/detect_collate.h"
#include "data/image_files.h"
#include "data/read_image.h"
#include "data/sampler.h"
#include "families/model_family.h"
#include "io/json_reader.h"
#include "io/run_folder.h"
#include "plot/batch_plot.h"
#include "plot/labels_plot.h"
#include "plot/plot_style.h"
#include "tasks/box_ops.h"
#include "tasks/end_to_end_detections.h"
#include "tasks/nms.h"
#include "tasks/same_classes.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/memory.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

// YOLOv8's largest stride: the letterbox side must be a multiple of it.
constexpr int64_t kMaxStride = 32;

int64_t letterbox_side(const DataSettings& data) {
  const int64_t requested = data.imgsz.value_or(640);
  const int64_t side = (requested + kMaxStride - 1) / kMaxStride * kMaxStride;
  if (side != requested) {
    spdlog::warn("imgsz={} must be a multiple of YOLOv8's stride {}; using {}", requested, kMaxStride, side);
  }
  return side;
}

DetectDataConfig read_config(const std::string& data) {
  std::error_code error;
  if (!fs::is_regular_file(data, error)) {
    throw UserError("data=" + data + " is not a file; task=detect reads an Ultralytics data.yaml (the "
                    "embedded set is made by `trainer data synth-detect`, giving data/synth-detect/data.yaml)");
  }
  return read_detect_data_config(data);
}

DetectDataOptions data_options(const DetectSettings& detect, double max_bad_fraction, int64_t classes) {
  DetectDataOptions options;
  options.classes = classes;
  options.strict = detect.strict;
  options.single_class = detect.single_cls;
  options.max_bad_fraction = max_bad_fraction;
  return options;
}

// Coordinates and scores in predictions.json keep 6 significant digits (a float's precision).
double six_digits(float value) { return std::stod(fmt::format("{:.6g}", value)); }

void draw_detections(cv::Mat& bgr, const torch::Tensor& detections, const std::vector<std::string>& names) {
  const auto rows = detections.accessor<float, 2>();
  const int thickness = std::max(1, static_cast<int>(std::lround(std::max(bgr.cols, bgr.rows) / 400.0)));
  for (int64_t i = 0; i < detections.size(0); ++i) {
    const auto cls = static_cast<int64_t>(rows[i][5]);
    const cv::Rect box(cv::Point(static_cast<int>(rows[i][0]), static_cast<int>(rows[i][1])),
                       cv::Point(static_cast<int>(rows[i][2]), static_cast<int>(rows[i][3])));
    draw_labelled_box(bgr, box, class_colour(cls),
                      fmt::format("{} {:.2f}", names.at(static_cast<size_t>(cls)), rows[i][4]), thickness);
  }
}

}  // namespace

DetectTask::DetectTask(const SharedTaskSettings& shared, const DetectSettings& detect, DataSplits splits,
                       const ModelCard* card)
    : shared_(shared), detect_(detect), imgsz_(letterbox_side(shared.data)) {
  if (splits != DataSplits::none) open_data(splits == DataSplits::train_and_val);
  if (card != nullptr) {
    if (val_) require_same_classes(shared.run.data, config_.names, card->labels);
    config_.names = card->labels;
  }
  validator_ = std::make_unique<DetectValidator>(*this);
  torch::manual_seed(static_cast<uint64_t>(shared.run.seed));
  ModelRequest request{shared.run.model, 3, classes()};
  request.definition = shared.run.model_definition;
  model_ = build_detector(request);
  choose_branch(splits);
  loss_options_.box = detect.box;
  loss_options_.cls = detect.cls;
  loss_options_.dfl = detect.dfl;
  set_planned_epochs(shared.schedule.epochs);
}

void DetectTask::choose_branch(DataSplits splits) {
  if (detect_.end2end.value_or(false) && !model_.end2end) {
    throw UserError("end2end=true: " + shared_.run.model +
                    " has no end-to-end (one-to-one) branch; YOLO26 and model yamls with `end2end: True` have one");
  }
  // As Ultralytics 8.4, `end2end` chooses the branch where a model is used (val, predict, export),
  // not while it trains: training and its validation keep the model's own.
  one_to_one_ = model_.end2end && (splits == DataSplits::train_and_val || detect_.end2end.value_or(true));
}

void DetectTask::set_planned_epochs(int64_t epochs) {
  shared_.schedule.epochs = epochs;
  // Changed mid-run (time=), the losses stay the objects a captured step reads.
  if (end_to_end_loss_) end_to_end_loss_->set_epochs(epochs);
  if (end_to_end_loss_ || loss_) return;
  if (model_.end2end) {
    end_to_end_loss_ = std::make_unique<EndToEndDetectionLoss>(classes(), model_.strides, model_.reg_max,
                                                               loss_options_, epochs);
  } else {
    loss_ = std::make_unique<DetectionLoss>(classes(), model_.strides, model_.reg_max, loss_options_);
  }
}

void DetectTask::begin_epoch(int64_t epoch) {
  if (end_to_end_loss_) end_to_end_loss_->set_epoch(epoch);
}

void DetectTask::open_data(bool with_train_split) {
  config_ = read_config(shared_.run.data);
  // Labels are checked against the data file's classes, so its names are replaced only after.
  const DetectDataOptions options = data_options(detect_, shared_.data.max_bad_fraction, classes());
  if (detect_.single_cls) config_.names = {"item"};  // Ultralytics' name for the one class
  val_ = std::make_unique<DetectDataset>(list_images(config_.val), options);
  if (with_train_split) {
    train_ = std::make_unique<DetectDataset>(list_images(config_.train), options);
    train_indices_ = subset_indices(train_->size(), shared_.data.fraction, static_cast<uint64_t>(shared_.run.seed));
  }
  // `val` and `predict` read each image once: nothing to keep for.
  if (!with_train_split) return;
  if (shared_.data.cache == ImageCacheMode::ram) make_memos();
  if (shared_.data.cache == ImageCacheMode::disk) {
    const PixelCacheSettings cache{shared_.data.cache_dir, int(shared_.data.cache_quality)};
    use_detect_pixel_cache(*train_, imgsz_, DetectCopies::training, cache);
    use_detect_pixel_cache(*val_, imgsz_, DetectCopies::letterboxed, cache);
  }
}

void DetectTask::make_memos() {
  // What the kept images will take: training ones resized to imgsz on the long side, validation
  // ones letterboxed to imgsz x imgsz.
  int64_t bytes = 0;
  for (const size_t i : train_indices_) {
    const cv::Size size = long_side_size(train_->original_size(i), imgsz_);
    bytes += int64_t(size.width) * size.height * 3;
  }
  bytes += int64_t(val_->size()) * imgsz_ * imgsz_ * 3;
  const int64_t available = available_host_memory_bytes();
  const double gigabytes = double(bytes) / 1e9;
  if (available >= 0 && bytes > available / 3 * 2) {
    spdlog::warn("cache=ram: the decoded images need {:.1f} GB, more than two thirds of the {:.1f} GB available; "
                 "not caching", gigabytes, double(available) / 1e9);
    return;
  }
  spdlog::info("cache=ram: keeping decoded images in memory as they are first loaded ({:.2f} GB)", gigabytes);
  train_memo_ = std::make_unique<ImageMemo>(train_->size());
  val_memo_ = std::make_unique<ImageMemo>(val_->size());
}

DetectAugment DetectTask::augment(bool train) const {
  DetectAugment augment;
  augment.imgsz = imgsz_;
  augment.train = train;
  augment.max_boxes = detect_.max_boxes;
  if (!train) return augment;
  augment.mosaic = detect_.mosaic;
  // close_mosaic counts the last epochs; a run shorter than it trains without mosaic throughout.
  augment.close_mosaic_epoch = std::max<int64_t>(shared_.schedule.epochs - detect_.close_mosaic, 0);
  augment.mixup = detect_.mixup;
  augment.degrees = shared_.data.degrees;
  augment.translate = detect_.translate;
  augment.scale = shared_.data.scale;
  augment.shear = shared_.data.shear;
  augment.perspective = detect_.perspective;
  augment.hsv_h = shared_.data.hsv_h;
  augment.hsv_s = shared_.data.hsv_s;
  augment.hsv_v = shared_.data.hsv_v;
  augment.flipud = detect_.flipud;
  augment.fliplr = shared_.data.fliplr;
  return augment;
}

Loader::Collate DetectTask::train_collate(uint64_t seed) const {
  TORCH_INTERNAL_ASSERT(train_, "train_collate without a training split");
  // A `fraction` subset draws its mosaic partners from itself.
  std::vector<size_t> pool = train_indices_.size() == train_->size() ? std::vector<size_t>() : train_indices_;
  return make_detect_collate(*train_, augment(true), seed, std::move(pool), train_memo_.get());
}

void DetectTask::plot_batch(const Batch& batch, const fs::path& path) const {
  const torch::Tensor input = model_input(batch.input.cpu());
  std::vector<PlottedSample> samples;
  for (int64_t b = 0; b < batch.size; ++b) {
    PlottedSample sample{input_to_rgb(input[b], {0, 0, 0}, {1, 1, 1}), {}, {}};
    const torch::Tensor rows = batch.target[b].to(torch::kFloat).contiguous();
    const auto target = rows.accessor<float, 2>();
    for (int64_t r = 0; r < target.size(0) && target[r][0] >= 0; ++r) {
      const auto cls = static_cast<int64_t>(target[r][0]);
      const cv::Rect2f box(target[r][1] - target[r][3] / 2, target[r][2] - target[r][4] / 2, target[r][3], target[r][4]);
      sample.boxes.push_back({box, cls, config_.names.at(static_cast<size_t>(cls))});
    }
    samples.push_back(std::move(sample));
  }
  draw_batch_grid(samples, path);
}

void DetectTask::plot_labels(const fs::path& path) const {
  std::vector<YoloBox> boxes;
  for (const size_t i : train_indices_) boxes.insert(boxes.end(), train_->boxes(i).begin(), train_->boxes(i).end());
  draw_labels(boxes, config_.names, path);
}

torch::Tensor DetectTask::model_input(const torch::Tensor& input) {
  // Ultralytics' preprocess, `img.float() / 255`, to the bit: a multiply by 1/255 rounds otherwise,
  // and a short run's outcome follows such differences (the learning test's mAP50 went 1.0 -> 0.38).
  return input.scalar_type() == torch::kUInt8 ? input.to(torch::kFloat).div(255.0) : input;
}

LossOutput DetectTask::loss(const Batch& batch) {
  // The first thing of the step: pixels become the model's input where the step runs.
  return loss_of(model_.forward(model_input(batch.input)), batch.target);
}

LossOutput DetectTask::loss_of(const std::vector<torch::Tensor>& levels, const torch::Tensor& targets) const {
  return end_to_end_loss_ ? (*end_to_end_loss_)(levels, targets) : (*loss_)(levels, targets);
}

torch::Tensor DetectTask::decoded(const std::vector<torch::Tensor>& levels) const {
  // An end-to-end head gives its one-to-many levels, then its one-to-one levels.
  const auto count = static_cast<std::ptrdiff_t>(model_.strides.size());
  const auto first = one_to_one_ ? levels.begin() + count : levels.begin();
  const std::vector<torch::Tensor> branch(first, first + count);
  return decode_predictions(branch, model_.strides, model_.reg_max, BoxFormat::xyxy);
}

torch::Tensor DetectTask::predictions(const torch::Tensor& input) {
  if (!deployed_) return decoded(model_.forward(input));
  const torch::Tensor output = deployed_->run(input);
  const torch::Tensor corners = xywh_to_xyxy(output.narrow(1, 0, 4).transpose(1, 2)).transpose(1, 2);
  return torch::cat({corners, output.narrow(1, 4, output.size(1) - 4)}, 1);
}

std::vector<torch::Tensor> DetectTask::detections(const torch::Tensor& predictions, double confidence) const {
  if (one_to_one_) return top_detections(predictions, detect_.max_det, confidence);
  NmsOptions nms;
  nms.confidence = confidence;
  nms.iou = detect_.iou;
  nms.max_detections = detect_.max_det;
  return non_max_suppression(predictions.cpu(), nms);
}

onnx_export::ModelGraph DetectTask::export_graph() const {
  return [graph = model_.onnx_graph, one_to_one = one_to_one_, max_det = detect_.max_det](
             onnx_export::GraphBuilder& builder, onnx_export::GraphRequest request) {
    request.end2end = one_to_one;
    request.max_det = max_det;
    return graph(builder, request);
  };
}

ModelCard DetectTask::model_card() const {
  // Letterboxed to imgsz with grey 114 (DetectAugment), the pixels scaled to [0, 1] alone.
  const int64_t channels = model_.in_channels;
  return {name(), shared_.run.model, config_.names, channels, imgsz_, imgsz_, "", unit_scaled_pixels(),
          shared_.run.model_definition};
}

std::vector<std::string> DetectTask::predict(const std::vector<std::string>& sources, const torch::Device& device,
                                             const PredictOptions& options) {
  const std::vector<std::string> paths = image_paths(sources);
  const fs::path folder = make_numbered_folder(options.parent, "predict", options.exist_ok);
  const double confidence = detect_.conf.value_or(kPredictConfidence);
  const bool was_training = model_.module->is_training();
  model_.module->eval();
  c10::InferenceMode inference;
  std::vector<std::string> lines;
  Json listing = Json::array();
  for (const auto& path : paths) {
    LabelledImage image{read_image(path, 3), {}};
    const Letterbox geometry = letterbox_geometry(image.image.size(), imgsz_, /*scaleup=*/true);
    const cv::Mat boxed = letterbox(image, geometry, imgsz_, augment(false).pad_value).image;
    const torch::Tensor input =
        torch::from_blob(boxed.data, {1, imgsz_, imgsz_, 3}, torch::kUInt8).permute({0, 3, 1, 2}).to(torch::kFloat).div(255);
    torch::Tensor found = detections(predictions(input.to(device)), confidence).front().clone();
    found.narrow(1, 0, 4).copy_(geometry.to_original(found.narrow(1, 0, 4)));

    std::vector<std::string> described;
    Json objects = Json::array();
    const auto rows = found.accessor<float, 2>();
    for (int64_t i = 0; i < found.size(0); ++i) {
      const std::string& label = config_.names.at(static_cast<size_t>(rows[i][5]));
      described.push_back(fmt::format("{} {:.{}f} [{:.0f} {:.0f} {:.0f} {:.0f}]", label, rows[i][4], options.digits,
                                      rows[i][0], rows[i][1], rows[i][2], rows[i][3]));
      objects.push_back(
          {{"class", static_cast<int64_t>(rows[i][5])},
           {"name", label},
           {"confidence", six_digits(rows[i][4])},
           {"box", {six_digits(rows[i][0]), six_digits(rows[i][1]), six_digits(rows[i][2]), six_digits(rows[i][3])}}});
    }
    lines.push_back(path + ": " + (described.empty() ? "no objects" : fmt::format("{}", fmt::join(described, ", "))));
    listing.push_back({{"image", path}, {"detections", std::move(objects)}});

    cv::Mat bgr;
    cv::cvtColor(image.image, bgr, cv::COLOR_RGB2BGR);
    draw_detections(bgr, found, config_.names);
    const fs::path annotated = folder / fs::path(path).filename();
    if (!cv::imwrite(annotated.string(), bgr)) throw UserError("cannot write " + annotated.string());
  }
  if (was_training) model_.module->train();
  write_file_atomically(folder / "predictions.json", listing.dump() + "\n");
  lines.push_back("annotated images and predictions.json in " + folder.string());
  return lines;
}

}  // namespace trainer
