// The typed, validated recipe. Filled once by the config layer (YAML file + key=value overrides,
// see recipe.h); every other component reads this struct and never a YAML node.
// docs/recipe-keys.md documents every key with its default; keep the two in step.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trainer {

enum class TaskKind { classify, ocr, detect };
enum class OptimizerKind { automatic, sgd, adamw };
enum class SchedulerKind { linear, cosine, onecycle, constant };
enum class AmpMode { automatic, off, fp16, bf16 };
enum class CompileMode { none, standard, reduce_overhead, max_autotune };
// Every compile mode, simplest first: the order `trainer plan --probe` compares them in.
inline constexpr CompileMode kCompileModes[] = {CompileMode::none, CompileMode::standard, CompileMode::reduce_overhead,
                                                CompileMode::max_autotune};
enum class NormKind { batch, group, frozen_batch, sync_batch };
enum class LrScaleRule { none, linear, sqrt, factor };
enum class DistBackend { automatic, gloo, nccl };
// Classification training's automatic augmentation, torchvision's AutoAugment (ImageNet policy),
// RandAugment and TrivialAugmentWide (data/auto_augment.h).
enum class AutoAugmentPolicy { none, randaugment, autoaugment, trivialaugment };
// Ultralytics' `cache`: decoded images kept in memory after the first epoch (detection).
enum class ImageCacheMode { off, ram };

// `freeze`: the model's first N layers, or layers named by their state-dict prefix
// (`model.0`, `layer1`, `FeatureExtraction`); models/trainable.h says what a layer is.
struct FreezeSpec {
  int64_t first_layers = 0;
  std::vector<std::string> layers;
  bool empty() const { return first_layers == 0 && layers.empty(); }
};

struct Settings {
  // --- what to train
  TaskKind task = TaskKind::classify;        ///< classify | ocr | detect
  std::string model = "resnet18";            ///< resnet18 | resnet34 | resnet50 | crnn | yolov8n/s/m/l/x
  std::string data = "fashion-mnist";        ///< fashion-mnist, an ImageFolder root, an OCR root (train/, val/) or a data.yaml
  std::string pretrained;                    ///< weights file to start from ("" = random init)
  NormKind norm = NormKind::batch;           ///< bn | gn | frozen_bn | syncbn
  FreezeSpec freeze;                         ///< layers that train no further (Ultralytics' freeze)

  // --- batch geometry
  int64_t epochs = 10;                       ///< >= 1
  int64_t batch = 16;                        ///< micro-batch per rank, >= 1
  std::optional<int64_t> accumulate;         ///< micro-batches per update; nullopt = auto
  int64_t nbs = 64;                          ///< nominal batch for accumulate=auto and decay scaling
  std::optional<int64_t> imgsz;              ///< input side in pixels; nullopt = dataset's native
  double fraction = 1.0;                     ///< share of the training split used, (0, 1]

  // --- data loading
  int64_t workers = 2;                       ///< loader threads, >= 0 (0 = load on the main thread)
  int64_t prefetch = 4;                      ///< batches decoded ahead, >= 1
  double fliplr = 0.5;                       ///< horizontal flip probability, [0, 1]
  int64_t crop_pad = 4;                      ///< pad-then-random-crop margin in pixels, >= 0
  double erasing = 0.0;                      ///< classification training: random erasing probability, [0, 1]
  AutoAugmentPolicy auto_augment = AutoAugmentPolicy::none;  ///< classification training: none | randaugment | autoaugment | trivialaugment
  int64_t randaugment_ops = 2;               ///< randaugment: ops per image, [1, 14]
  int64_t randaugment_magnitude = 9;         ///< randaugment: magnitude bin of 31, [0, 30]
  double crop_fraction = 1.0;                ///< classification evaluation: centre crop's share of the shorter side, (0, 1]
  double mixup_alpha = 0.0;                  ///< classification training: MixUp's Beta(alpha, alpha); 0 = off
  double cutmix_alpha = 0.0;                 ///< classification training: CutMix's Beta(alpha, alpha); 0 = off
  double mixup_prob = 1.0;                   ///< share of batches mixed when either alpha is on, [0, 1]
  double mixup_switch_prob = 0.5;            ///< with both on: share of mixed batches that use CutMix, [0, 1]
  double max_bad_fraction = 0.01;            ///< unreadable images tolerated before failing, [0, 1]
  ImageCacheMode cache = ImageCacheMode::off;  ///< detection: false | ram (true = ram) keeps decoded images in memory

  // --- hardware
  std::string device = "auto";               ///< auto | cpu | cuda | cuda:N
  int64_t threads = 0;                       ///< intra-op CPU threads; 0 = all cores
  int64_t seed = 0;                          ///< seeds weights, data order and augmentation
  bool deterministic = true;                 ///< deterministic algorithms where available

  // --- distributed data-parallel training (R17); `batch` is per rank. Under torchrun (or any
  // launcher that sets RANK, WORLD_SIZE, …) the environment gives the layout and these launch keys
  // are ignored.
  int64_t nproc = 1;                         ///< ranks this command starts on this machine; 0 or 1 = single process
  int64_t nnodes = 1;                        ///< machines, each running the same command with its node_rank
  int64_t node_rank = 0;                     ///< this machine's index, [0, nnodes)
  std::string master_addr;                   ///< rank 0's machine; "" = $MASTER_ADDR, else 127.0.0.1
  int64_t master_port = 0;                   ///< its store port; 0 = $MASTER_PORT, else a free port (one machine)
  DistBackend dist_backend = DistBackend::automatic;  ///< auto (nccl on CUDA, gloo on CPU) | gloo | nccl
  int64_t dist_timeout = 600;                ///< seconds the rendezvous or a collective waits for a peer

  // --- optimisation
  OptimizerKind optimizer = OptimizerKind::automatic;  ///< sgd | adamw | auto
  double lr0 = 0.01;                         ///< initial LR (before lr_scale), > 0
  double lrf = 0.01;                         ///< final LR as a fraction of lr0, [0, 1]
  double momentum = 0.937;                   ///< SGD momentum / AdamW beta1, [0, 1)
  double weight_decay = 5e-4;                ///< at batch nbs; scaled by effective batch / nbs
  LrScaleRule lr_scale = LrScaleRule::none;  ///< none | linear | sqrt | <factor per doubling>
  double lr_scale_factor = 1.0;              ///< the factor when lr_scale is a number
  int64_t lr_base_batch = 64;                ///< effective batch that lr0 refers to, >= 1
  SchedulerKind scheduler = SchedulerKind::linear;  ///< linear | cosine | onecycle | constant
  double warmup_epochs = 3.0;                ///< warmup length in epochs, >= 0
  std::optional<int64_t> warmup_updates;     ///< warmup length in updates (overrides warmup_epochs)
  double warmup_momentum = 0.8;              ///< SGD momentum at the start of warmup
  double warmup_bias_lr = 0.1;               ///< bias LR at the start of warmup
  double grad_clip = 10.0;                   ///< max total grad norm; 0 = no clipping
  double label_smoothing = 0.0;              ///< share of the target spread over all classes (OCR: of each frame's), [0, 1)
  AmpMode amp = AmpMode::automatic;          ///< auto | off | fp16 | bf16 (true = auto)
  bool ema = true;                           ///< keep an exponential moving average of weights
  double ema_decay = 0.9999;                 ///< EMA decay after its ramp, [0, 1)
  double ema_tau = 2000;                     ///< EMA ramp length in updates, > 0
  CompileMode compile = CompileMode::none;   ///< none | default | reduce-overhead | max-autotune
  std::string compile_cache_dir;             ///< max-autotune decisions; "" = <project>/compile-cache (R3, R29)
  int64_t compile_cache_limit = 8;           ///< captured input shapes kept; past it new shapes run eager (R2)

  // --- text recognition (task=ocr): EasyOCR's key names and meanings
  int64_t img_h = 64;                        ///< key imgH: input height, >= 32 (the CRNN halves it 4 times, then a 2x2 conv)
  int64_t img_w = 600;                       ///< key imgW: widest input; wider text is squeezed
  bool rgb = false;                          ///< 3 input channels instead of grey
  std::string charset;                       ///< "" = number + symbol + lang_char; "labels" = from the labels; else the characters
  std::string number = "0123456789";
  std::string symbol = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ \u20ac";
  std::string lang_char = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  int64_t batch_max_length = 34;             ///< longest label kept (characters)
  bool sensitive = false;                    ///< false = labels are lower-cased first
  bool data_filtering_off = false;           ///< keep too-long / unknown-character labels (truncated, cleaned)
  std::vector<std::string> select_data;      ///< training subfolders to mix; empty = every folder with labels.csv
  std::vector<double> batch_ratio;           ///< share of each select_data folder per epoch; empty = by size
  int64_t bucket_step = 64;                  ///< width buckets every this many pixels up to imgW ...
  std::vector<int64_t> bucket_widths;        ///< ... unless these explicit widths are given (ascending, <= imgW)
  int64_t output_channel = 256;              ///< CRNN feature channels (EasyOCR's output_channel)
  int64_t hidden_size = 256;                 ///< CRNN BiLSTM hidden size
  double elastic = 0.0;                      ///< OCR training: elastic warping, largest displacement in pixels (degrees and shear apply too)
  double dropout = 0.0;                      ///< OCR: dropout on the CRNN's sequence features and before its prediction layer, [0, 1)

  // --- detection (task=detect): Ultralytics' key names, meanings and defaults
  double mosaic = 1.0;                       ///< probability of a 4-image mosaic, [0, 1]
  int64_t close_mosaic = 10;                 ///< epochs at the end trained without mosaic (and mixup), >= 0
  double mixup = 0.0;                        ///< probability of MixUp with a second sample, [0, 1]
  double degrees = 0.0;                      ///< rotation drawn from +-degrees, [0, 180] (OCR too)
  double translate = 0.1;                    ///< translation drawn from +-translate of imgsz, [0, 1]
  double scale = 0.5;                        ///< scale gain drawn from 1 +- scale, [0, 1) (classification: random resized crop of [1 - scale, 1] of the area)
  double shear = 0.0;                        ///< shear drawn from +-shear degrees, [0, 90) (OCR: slant)
  double perspective = 0.0;                  ///< perspective coefficients, [0, 0.001]
  double hsv_h = 0.015;                      ///< hue gain, [0, 1]
  double hsv_s = 0.7;                        ///< saturation gain, [0, 1]
  double hsv_v = 0.4;                        ///< value gain, [0, 1]
  double flipud = 0.0;                       ///< vertical flip probability, [0, 1]
  int64_t max_boxes = 100;                   ///< target rows per image (a fixed shape); more boxes are counted and dropped
  bool strict = false;                       ///< a malformed label line stops the run instead of being skipped
  bool single_cls = false;                   ///< every object is one class, "item" (labels still checked against nc)
  double box = 7.5;                          ///< CIoU loss gain, >= 0
  double cls = 0.5;                          ///< classification loss gain, >= 0
  double dfl = 1.5;                          ///< distribution focal loss gain, >= 0
  std::optional<double> conf;                ///< NMS confidence; nullopt = 0.001 in val, 0.25 in predict
  double iou = 0.7;                          ///< NMS IoU threshold, (0, 1]
  int64_t max_det = 300;                     ///< detections kept per image, >= 1

  // --- run folder, checkpoints, validation
  std::string project = "runs";              ///< parent folder of runs
  std::string name = "train";                ///< run folder name under project/<task>/
  bool exist_ok = false;                     ///< reuse project/<task>/name instead of name2, name3…
  int64_t save_period = -1;                  ///< also save epoch<N>.pt every N epochs; -1 = off
  int64_t save_interval = 0;                 ///< also write last.pt every N updates; 0 = off
  std::string resume;                        ///< "" | "true" (latest run of project/task/name) | last.pt path
  bool resume_force = false;                 ///< resume even when the command changes the batch geometry or model
  int64_t patience = 100;                    ///< epochs without improvement before stopping
  bool val = true;                           ///< validate after every epoch
  bool plots = true;                         ///< draw results.png
};

const char* to_string(TaskKind value);
// The ascending widths OCR batches are padded to: bucket_widths, or multiples of bucket_step, ending at imgW.
std::vector<int64_t> ocr_bucket_widths(const Settings& settings);
const char* to_string(OptimizerKind value);
const char* to_string(SchedulerKind value);
const char* to_string(AmpMode value);
const char* to_string(CompileMode value);
const char* to_string(NormKind value);
const char* to_string(AutoAugmentPolicy value);
const char* to_string(ImageCacheMode value);
const char* to_string(DistBackend value);
std::string lr_scale_text(const Settings& settings);

}  // namespace trainer
