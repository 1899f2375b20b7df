// The small value types of settings fields that components below the engine take on their own
// (models a NormKind, dist its launch keys, data an AutoAugmentPolicy), so those layers need not
// include the whole recipe (config/settings.h). Names and meanings are in the key table.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

enum class TaskKind { classify, ocr, detect };
enum class OptimizerKind { automatic, sgd, adamw, adam, adadelta, musgd, rmsproptf };
enum class SchedulerKind { linear, cosine, onecycle, constant, step, multistep };
enum class AmpMode { automatic, off, fp16, bf16 };
enum class CompileMode { none, standard, reduce_overhead, max_autotune };
// Every compile mode, simplest first: the order `trainer plan --probe` compares them in.
inline constexpr CompileMode kCompileModes[] = {CompileMode::none, CompileMode::standard, CompileMode::reduce_overhead,
                                                CompileMode::max_autotune};
enum class NormKind { batch, group, frozen_batch, sync_batch };
enum class LrScaleRule { none, linear, sqrt, factor };
enum class DistBackend { automatic, gloo, nccl };
// Classification training's automatic augmentation, torchvision's AutoAugment (ImageNet policy),
// RandAugment and TrivialAugmentWide (data/classify/auto_augment.h), and timm's RandAugment
// (data/classify/timm_rand_augment.h).
enum class AutoAugmentPolicy { none, randaugment, autoaugment, trivialaugment, timm_rand };
// timm's RandAugment as its --aa string sets it (`rand-m9-n2-mstd0.5-inc1`, timm/data/auto_augment.py's
// rand_augment_transform).
struct TimmRandAugmentSpec {
  double magnitude = 10;       ///< m: strength in tenths of each op's range
  int64_t layers = 2;          ///< n: ops drawn per image (with replacement), each applied at odds 0.5
  double magnitude_std = 0;    ///< mstd: Gaussian noise on the magnitude per op; infinity: uniform in [0, m]
  double magnitude_max = 10;   ///< mmax: the noisy magnitude is clipped to [0, this]
  bool increasing = false;     ///< inc1: the op set whose every op strengthens with the magnitude
};
// What random erasing fills its boxes with, after normalisation (timm's --remode): 0 (the dataset's
// mean colour), one standard-normal value per channel, or one per pixel (data/classify/random_erasing.h).
enum class ErasingMode { constant, rand, pixel };
// Ultralytics' `cache`: decoded images kept in memory after the first epoch (detection), or
// resized copies kept in one memory-mapped file per split (detection and classification).
enum class ImageCacheMode { off, ram, disk };
// The four stages of EasyOCR's recognizer (its trainer/model.py), named as its configs name them.
enum class OcrTransformation { none, tps };
enum class OcrFeatureExtraction { vgg, rcnn, resnet };
enum class OcrSequenceModeling { none, bilstm };
enum class OcrPrediction { ctc, attn };

// `freeze`: the model's first N layers, or layers named by their state-dict prefix
// (`model.0`, `layer1`, `FeatureExtraction`); models/trainable.h says what a layer is.
struct FreezeSpec {
  int64_t first_layers = 0;
  std::vector<std::string> layers;
  bool empty() const { return first_layers == 0 && layers.empty(); }
};

// PIL's decompression-bomb error threshold: the default of max_image_pixels.
inline constexpr int64_t kPilMaxImagePixels = 178956970;

// Distributed data-parallel training (R17); `batch` is per rank. Under torchrun (or any launcher
// that sets RANK, WORLD_SIZE, …) the environment gives the layout and these launch keys are ignored.
struct DistributedSettings {
  int64_t nproc = 1;
  int64_t nnodes = 1;
  int64_t node_rank = 0;
  std::string master_addr;            // "" = $MASTER_ADDR, else 127.0.0.1
  int64_t master_port = 0;            // 0 = $MASTER_PORT, else a free port
  DistBackend backend = DistBackend::automatic;
  int64_t timeout = 600;              // seconds
};

const char* to_string(TaskKind value);
const char* to_string(OptimizerKind value);
const char* to_string(SchedulerKind value);
const char* to_string(AmpMode value);
const char* to_string(CompileMode value);
const char* to_string(NormKind value);
const char* to_string(AutoAugmentPolicy value);
const char* to_string(ErasingMode value);
const char* to_string(ImageCacheMode value);
const char* to_string(DistBackend value);
const char* to_string(OcrTransformation value);
const char* to_string(OcrFeatureExtraction value);
const char* to_string(OcrSequenceModeling value);
const char* to_string(OcrPrediction value);

}  // namespace trainer
