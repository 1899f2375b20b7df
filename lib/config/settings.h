// The typed, validated recipe, in sections. Filled once by the config layer (YAML file +
// key=value overrides, see recipe.h); every other component reads its sections and never a YAML
// node. A field's meaning, range and recipe key are in its row of the key table
// (config/recipe_keys.cpp, which docs/recipe-keys.md is made from); its default is here.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/setting_types.h"

namespace trainer {

// What is trained, from what, on which hardware.
struct RunSettings {
  TaskKind task = TaskKind::classify;
  std::string model = "resnet18";
  std::string data = "fashion-mnist";
  std::string pretrained;             // "" = random init
  // Not a key: the text of the model-definition file model= names (Ultralytics' model yaml), read
  // once by the recipe loader, or the one a checkpoint carries; "" for a built-in model.
  std::string model_definition;
  NormKind norm = NormKind::batch;
  double dropout = 0.0;               // in training: the CRNN's features, a ResNet's pooled features
  double drop_path = 0.0;             // in training: a ResNet's stochastic depth (its last block's rate)
  FreezeSpec freeze;
  std::string device = "auto";        // auto | cpu | cuda | cuda:N
  int64_t threads = 0;
  int64_t seed = 0;
  bool deterministic = true;
};

// Loading, the augmentation several tasks share, and the targets.
struct DataSettings {
  std::optional<int64_t> imgsz;       // nullopt = the dataset's native size
  double fraction = 1.0;
  int64_t workers = 2;
  int64_t prefetch = 4;
  double max_bad_fraction = 0.01;
  int64_t max_image_pixels = kPilMaxImagePixels;
  double fliplr = 0.5;
  double degrees = 0.0;
  double scale = 0.5;
  double shear = 0.0;
  double hsv_h = 0.015;
  double hsv_s = 0.7;
  double hsv_v = 0.4;
  double label_smoothing = 0.0;
  ImageCacheMode cache = ImageCacheMode::off;
  std::string cache_dir;              // cache=disk: "" = beside each split's images
  int64_t cache_quality = 95;         // cache=disk: JPEG quality of the kept copies
};

// Batch geometry and the learning-rate schedule, counted in updates.
struct ScheduleSettings {
  int64_t epochs = 10;
  int64_t updates = 0;                // total optimizer updates; 0 = off (epochs); else epochs are derived
  // Ultralytics' wall-clock budget in hours: the epochs are recomputed after each one from the mean
  // epoch time, and the run stops once it is spent; nullopt (or 0) = the length is `epochs`.
  std::optional<double> time;
  int64_t batch = 16;                 // micro-batch per rank
  // Ultralytics' AutoBatch (batch=-1: 0.6, or batch=0.7): the share of GPU memory the batch may
  // take, chosen before training starts (compile/auto_batch.h) and then recorded as `batch`.
  std::optional<double> auto_batch;
  std::optional<int64_t> val_batch;   // nullopt = 2 x batch (R28)
  std::optional<int64_t> accumulate;  // nullopt = auto
  int64_t nbs = 64;
  double lrf = 0.01;
  LrScaleRule lr_scale = LrScaleRule::none;
  double lr_scale_factor = 1.0;       // the factor when lr_scale is a number
  int64_t lr_base_batch = 64;
  SchedulerKind scheduler = SchedulerKind::linear;
  double warmup_epochs = 3.0;
  std::optional<int64_t> warmup_updates;  // overrides warmup_epochs
  double warmup_momentum = 0.8;
  double warmup_bias_lr = 0.1;
  std::optional<double> warmup_lr;    // nullopt = Ultralytics' ramp from 0; else timm's from this LR
  std::optional<double> min_lr;       // nullopt = lr0 * lrf
  bool sched_on_updates = true;       // false: the LR changes at epoch ends only, as timm's default
  double decay_epochs = 90;           // scheduler=step
  std::vector<int64_t> decay_milestones = {90, 180, 270};  // scheduler=multistep
  double decay_rate = 0.1;            // step and multistep
  int64_t cooldown_epochs = 0;        // epochs at the final LR after the schedule ends
};

struct OptimizerSettings {
  OptimizerKind kind = OptimizerKind::automatic;
  double lr0 = 0.01;
  double momentum = 0.937;            // SGD momentum, Adam/AdamW beta1
  double rho = 0.95;                  // Adadelta (EasyOCR's value)
  double eps = 1e-8;                  // Adam, AdamW, Adadelta
  double weight_decay = 5e-4;
  bool scale_weight_decay = true;     // by effective batch / nbs (Ultralytics); false: as given (timm)
  double grad_clip = 10.0;
  bool ema = true;
  double ema_decay = 0.9999;
  double ema_tau = 2000;
};

// Precision and how a step executes.
struct ExecutionSettings {
  AmpMode amp = AmpMode::automatic;
  CompileMode compile = CompileMode::none;
  std::string compile_cache_dir;      // "" = <project>/compile-cache
  int64_t compile_cache_limit = 8;
};

// The run folder, checkpoints, validation and stopping.
struct OutputSettings {
  std::string project = "runs";
  std::string name = "train";
  bool exist_ok = false;
  int64_t save_period = -1;           // -1 = off
  int64_t keep_best = 0;              // epoch checkpoints of the best validations kept; 0 = none
  int64_t save_interval = 0;          // 0 = off
  int64_t val_interval = 0;           // 0 = validate at epoch ends; else every N updates and at the end
  std::string resume;                 // "" | "true" (latest run of project/task/name) | last.pt path
  bool resume_force = false;
  int64_t patience = 100;
  bool val = true;
  bool plots = true;
};

// Image classification (task=classify): timm's and torchvision's augmentation and mixing.
struct ClassifySettings {
  std::optional<int64_t> num_classes; // the head's outputs; nullopt = the data's class count
  int64_t crop_pad = 4;
  double erasing = 0.0;
  ErasingMode erasing_mode = ErasingMode::constant;
  int64_t erasing_count = 1;
  AutoAugmentPolicy auto_augment = AutoAugmentPolicy::none;
  TimmRandAugmentSpec timm_rand;      // auto_augment=rand-…: timm's RandAugment
  int64_t randaugment_ops = 2;
  int64_t randaugment_magnitude = 9;
  double crop_fraction = 1.0;
  double mixup_alpha = 0.0;
  double cutmix_alpha = 0.0;
  double mixup_prob = 1.0;
  double mixup_switch_prob = 0.5;
};

// Detection (task=detect): Ultralytics' key names, meanings and defaults.
struct DetectSettings {
  double mosaic = 1.0;
  int64_t close_mosaic = 10;
  double mixup = 0.0;
  double translate = 0.1;
  double perspective = 0.0;
  double flipud = 0.0;
  int64_t max_boxes = 100;
  bool strict = false;
  bool single_cls = false;
  double box = 7.5;
  double cls = 0.5;
  double dfl = 1.5;
  std::optional<double> conf;         // nullopt = 0.001 in val, 0.25 in predict
  double iou = 0.7;
  int64_t max_det = 300;
  // An end-to-end model's branch in val, predict and export (Ultralytics 8.4's `end2end`): unset or
  // true the one-to-one branch without NMS, false the one-to-many branch with NMS.
  std::optional<bool> end2end;
};

// Text recognition (task=ocr): EasyOCR's key names and meanings.
struct OcrSettings {
  int64_t img_h = 64;                 // key imgH
  int64_t img_w = 600;                // key imgW
  bool rgb = false;
  std::string charset;                // "" = number + symbol + lang_char; "labels" = from the labels
  std::string number = "0123456789";
  std::string symbol = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ \u20ac";
  std::string lang_char = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  int64_t batch_max_length = 34;
  bool sensitive = false;
  bool data_filtering_off = false;
  double contrast_adjust = 0.0;  // EasyOCR's: stretch lines whose contrast is below it; 0 = off
  std::string train_data;        // EasyOCR's training root; "" = <data>/train
  std::string valid_data;        // EasyOCR's validation root; "" = <data>/val
  std::vector<std::string> select_data;
  std::vector<double> batch_ratio;
  int64_t bucket_step = 64;           // key buckets: one number
  std::vector<int64_t> bucket_widths; // key buckets: several widths
  OcrTransformation transformation = OcrTransformation::none;
  OcrFeatureExtraction feature_extraction = OcrFeatureExtraction::vgg;
  OcrSequenceModeling sequence_modeling = OcrSequenceModeling::bilstm;
  OcrPrediction prediction = OcrPrediction::ctc;
  int64_t num_fiducial = 20;
  int64_t output_channel = 256;
  int64_t hidden_size = 256;
  double elastic = 0.0;
};

struct Settings {
  RunSettings run;
  DataSettings data;
  ScheduleSettings schedule;
  OptimizerSettings optim;
  ExecutionSettings execution;
  DistributedSettings dist;
  OutputSettings output;
  ClassifySettings classify;
  DetectSettings detect;
  OcrSettings ocr;
};

// The sections every task is built from besides its own.
struct SharedTaskSettings {
  RunSettings run;
  DataSettings data;
  ScheduleSettings schedule;
};

// R28: validation runs batches of twice the training micro-batch (no gradients to keep), padded to
// that one size, unless val_batch says otherwise (timm's --validation-batch-size).
inline int64_t validation_batch(const ScheduleSettings& schedule) {
  return schedule.val_batch.value_or(schedule.batch * 2);
}

// The ascending widths OCR batches are padded to: bucket_widths, or multiples of bucket_step,
// ending at imgW; imgW alone under TPS.
std::vector<int64_t> ocr_bucket_widths(const OcrSettings& ocr);
std::string lr_scale_text(const ScheduleSettings& schedule);

}  // namespace trainer
