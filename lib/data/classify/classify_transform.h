// The classification collate step: decode, resize, augment, normalise and stack a batch.
#pragma once
#include "data/classify/auto_augment.h"
#include "data/classify/batch_mix.h"
#include "data/classify/color_jitter.h"
#include "data/classify/random_erasing.h"
#include "data/image_dataset.h"
#include "data/loader.h"

#include <cstdint>

namespace trainer {

struct ClassifyAugment {
  int64_t imgsz;             ///< output side: a region of each image (below) is resized to it
  int64_t crop_pad = 4;      ///< train: pad by this much, then crop imgsz back at a random offset
  double fliplr = 0.5;       ///< train: horizontal flip probability
  bool train = true;         ///< false: centre crop, resize and normalise only
  double scale = 0.0;        ///< train: random resized crop of [1 - scale, 1] of the area; 0 = centred square
  RandomErasing erasing = {};  ///< train: timm's random erasing of the normalised sample
  AutoAugment auto_augment = {};  ///< train: RandAugment, AutoAugment or TrivialAugmentWide on the resized sample
  ColorJitter color_jitter = {};  ///< train, without auto_augment: torchvision's ColorJitter on the resized sample
  double crop_fraction = 1;  ///< evaluation: centre square's share of the shorter side
  BatchMix mix = {};         ///< train: MixUp / CutMix over the collated batch
};

// Seconds spent per stage, summed over `samples` samples. crop: drawing the region and the decode
// scale; decode: reading the region's pixels; resize: to imgsz; jitter: colour jitter or the
// automatic policy; flip; collate: writing into the batch (pad shift, normalisation, erasing,
// mixing).
struct ClassifyStageTimes {
  double crop = 0, decode = 0, resize = 0, jitter = 0, flip = 0, collate = 0;
  int64_t samples = 0;
};

// The region: in training the random resized crop when scale > 0, else the largest centred
// square; in evaluation the centred square of crop_fraction. Shrinking averages pixels (area
// interpolation), enlarging is bilinear.
// The padding is black (pixel 0), not reflected: for Fashion-MNIST-like data on a black
// background it reads as a plain shift, where reflection would mirror garment edges into view.
// Erasing writes after normalisation, as torchvision and timm do (its 0 is the dataset's mean colour).
// The automatic augmentation works on the resized uint8 sample, before the pad shift and the flip
// (torchvision's order is crop, flip, policy: the policy's geometric ops are drawn with either sign
// at equal odds, so the flip's place does not change what a sample can become), with its own
// generator, so turning it on leaves every other draw as it was. Colour jitter takes its place when
// no policy is on (Ultralytics' and timm's rule: the policies have colour ops of their own), on a
// generator of its own as well.
// Each sample's draws come from a generator seeded by (seed, epoch, dataset index), and the
// batch's mixing from one seeded by (seed, epoch, its first index), so a batch is bit-identical
// for any worker count. `data` must outlive the returned function.
// `times`, when given, gathers where the collate's time goes (bench_loader's per-stage table):
// only one collate call may use it at a time (a Loader with 0 workers).
Loader::Collate make_classify_collate(const ImageDataset& data, ClassifyAugment augment,
                                      Normalization norm, uint64_t seed, ClassifyStageTimes* times = nullptr);

}  // namespace trainer
