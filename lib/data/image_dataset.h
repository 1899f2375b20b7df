// The classification source interface: what the collate step needs from any labelled image set,
// whether it lives in memory (IDX) or on disk (ImageFolder).
#pragma once
#include <c10/util/Exception.h>
#include <opencv2/core.hpp>

#include "data/read_image.h"

#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

enum class Split { train, val };

// Per-channel statistics of the dataset's pixels scaled to [0, 1].
struct Normalization {
  std::vector<double> mean, std;
};

// What decoding an image gives, known before decoding it.
struct ImageGeometry {
  cv::Size size;          ///< image(i)'s size; empty where only decoding tells
  int max_reduction = 1;  ///< the largest factor (1, 2, 4 or 8) reduced_image shrinks it by cheaply
};

// Loader threads call the const methods concurrently, so implementations keep them thread-safe.
class ImageDataset {
 public:
  virtual ~ImageDataset() = default;

  virtual size_t size() const = 0;
  // uint8 with exactly channels() channels (RGB order when 3), at the file's own size.
  // Throws UserError naming the file when it cannot be read.
  virtual cv::Mat image(size_t i) const = 0;
  virtual ImageGeometry geometry(size_t i) const { return {}; }
  // image(i) at 1/reduction of each side (rounded up), decoded at that size rather than shrunk
  // afterwards (a JPEG's DCT scaling); reduction is at most geometry(i).max_reduction.
  virtual cv::Mat reduced_image(size_t i, int reduction) const {
    TORCH_INTERNAL_ASSERT(reduction == 1, "this dataset decodes images at their own size only");
    return image(i);
  }
  // image(i)'s `region` (in image(i)'s pixels, inside geometry(i).size) at 1/reduction of each
  // side, decoding no more of the file than a dataset can avoid; at most half a reduced pixel off
  // at each edge (reduced_region). By default the reduced image, cropped.
  virtual cv::Mat region_image(size_t i, const cv::Rect& region, int reduction) const {
    const cv::Mat image = reduced_image(i, reduction);
    const cv::Rect scaled = reduced_region(region, geometry(i).size, image.size());
    return scaled.empty() ? image : image(scaled);
  }
  // The file image(i) is decoded from; "" for data held in memory.
  virtual std::string path(size_t i) const { return {}; }
  virtual int64_t label(size_t i) const = 0;
  virtual const std::vector<std::string>& class_names() const = 0;
  virtual int64_t channels() const = 0;
  // The side images are trained at when the recipe leaves imgsz unset.
  virtual int64_t native_size() const = 0;
  virtual Normalization normalization() const = 0;
};

}  // namespace trainer
