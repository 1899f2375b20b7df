// Fashion-MNIST, or any data in its IDX file layout, held in memory: the 70,000 28x28 grey images
// are 55 MB, far cheaper to keep than to decode per sample.
#pragma once
#include "data/image_dataset.h"

#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

struct IdxImages {
  size_t count = 0;
  int64_t rows = 0, cols = 0;
  std::vector<uint8_t> pixels;  ///< count * rows * cols, row-major
};

// Readers for gzip-compressed or plain IDX files; UserError naming the file on a bad magic number,
// a size that disagrees with the header, or a corrupt gzip stream.
IdxImages read_idx_images(const std::string& path);
std::vector<uint8_t> read_idx_labels(const std::string& path);

// True when `dir` holds any of the four Fashion-MNIST IDX files (plain or .gz).
bool holds_idx_files(const std::string& dir);

class FashionMnist : public ImageDataset {
 public:
  // Split::train reads train-*-ubyte[.gz], Split::val the 10,000-image t10k-*-ubyte[.gz] set.
  FashionMnist(const std::string& dir, Split split);

  size_t size() const override { return labels_.size(); }
  cv::Mat image(size_t i) const override;
  int64_t label(size_t i) const override { return labels_.at(i); }
  const std::vector<std::string>& class_names() const override;
  int64_t channels() const override { return 1; }
  int64_t native_size() const override { return images_.rows; }
  Normalization normalization() const override { return {{0.2860}, {0.3530}}; }

 private:
  IdxImages images_;
  std::vector<uint8_t> labels_;
};

}  // namespace trainer
