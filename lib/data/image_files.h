// Unlabelled image files shaped like a model's training data, for prediction: the same decoding,
// channels, size and normalisation as the dataset the model was trained on.
#pragma once
#include <string>
#include <vector>

#include "data/image_dataset.h"

namespace trainer {

// The image files (.png, .jpg, .jpeg, .bmp) named by `sources`: files as given, folders as their
// image files in sorted order, shell patterns (`photos/*.jpg`) as the image files they match.
// UserError for a missing source, a pattern that matches no image, a URL (nothing is fetched),
// or when no image is found.
std::vector<std::string> image_paths(const std::vector<std::string>& sources);

class ImageFiles : public ImageDataset {
 public:
  // `sources`: image files or folders (their image files, sorted). UserError when none is found.
  ImageFiles(const std::vector<std::string>& sources, int64_t channels, std::vector<std::string> class_names,
             int64_t native_size, Normalization normalization);

  size_t size() const override { return paths_.size(); }
  cv::Mat image(size_t i) const override;
  int64_t label(size_t) const override { return -1; }
  const std::vector<std::string>& class_names() const override { return class_names_; }
  int64_t channels() const override { return channels_; }
  int64_t native_size() const override { return native_size_; }
  Normalization normalization() const override { return normalization_; }
  std::string path(size_t i) const override { return paths_.at(i); }

 private:
  std::vector<std::string> paths_;
  int64_t channels_;
  std::vector<std::string> class_names_;
  int64_t native_size_;
  Normalization normalization_;
};

}  // namespace trainer
