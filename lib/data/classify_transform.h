// The classification collate step: decode, resize, augment, normalise and stack a batch.
#pragma once
#include "data/image_dataset.h"
#include "data/loader.h"

#include <cstdint>

namespace trainer {

struct ClassifyAugment {
  int64_t imgsz;         ///< output side; images of another size are resized (bilinear) first
  int64_t crop_pad = 4;  ///< train: pad by this much, then crop imgsz back at a random offset
  double fliplr = 0.5;   ///< train: horizontal flip probability
  bool train = true;     ///< false: resize and normalise only
};

// The padding is black (pixel 0), not reflected: for Fashion-MNIST-like data on a black
// background it reads as a plain shift, where reflection would mirror garment edges into view.
// Each sample's crop and flip come from a generator seeded by (seed, epoch, dataset index), so a
// batch is bit-identical for any worker count. `data` must outlive the returned function.
Loader::Collate make_classify_collate(const ImageDataset& data, ClassifyAugment augment,
                                      Normalization norm, uint64_t seed);

}  // namespace trainer
