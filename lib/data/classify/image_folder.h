// An ImageFolder tree on disk: root/{train,val}/<class>/*.{png,jpg,jpeg,bmp}, the validation
// split also named validation/ as timm's train.py names it. Every file is
// decoded once up front, so a corrupt file costs a warning at start-up instead of a crash hours
// into training; what that found is kept beside the split folder (root/train.trainer-cache, like
// Ultralytics' train.cache), so later runs on the same files skip it.
#pragma once
#include "data/image_dataset.h"
#include "data/stand_in_images.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace trainer {

// root/train, and root/val or else timm's root/validation (root/val when neither exists).
std::filesystem::path image_folder_split(const std::filesystem::path& root, Split split);

class ImageFolder : public ImageDataset {
 public:
  // Classes are the sorted subfolder names, which must be the same under train/ and val/.
  // Unreadable files are skipped with a warning each; throws UserError when their share of the
  // split exceeds max_bad_fraction or no readable image is left. `cache` reads and writes the
  // scan cache; one that cannot be written costs a warning.
  ImageFolder(const std::string& root, Split split, double max_bad_fraction,
              int64_t native_size = 224, bool cache = true);

  size_t size() const override { return samples_.size(); }
  // A file that fails to read after the scan is skipped and another sample stands in for it, its
  // label and geometry with it (stand_in_images.h).
  cv::Mat image(size_t i) const override;
  // JPEG files reduce by up to 8.
  ImageGeometry geometry(size_t i) const override;
  cv::Mat reduced_image(size_t i, int reduction) const override;
  // A JPEG decodes only the region's rows and columns (read_jpeg_region).
  cv::Mat region_image(size_t i, const cv::Rect& region, int reduction) const override;
  std::string path(size_t i) const override { return samples_.at(i).path; }
  int64_t label(size_t i) const override { return samples_.at(stand_ins_.resolve(i)).label; }
  const std::vector<std::string>& class_names() const override { return classes_; }
  // 1 when every image is grey, else 3 with grey images expanded.
  int64_t channels() const override { return channels_; }
  int64_t native_size() const override { return native_size_; }
  // ImageNet statistics for colour; 0.5/0.5 for grey, where no standard statistics exist.
  Normalization normalization() const override;
  size_t skipped() const { return skipped_; }
  bool from_cache() const { return from_cache_; }

 private:
  struct Sample {
    std::string path;
    int64_t label;
    cv::Size size;  // as decoded, from the scan
    bool jpeg;
  };
  std::vector<Sample> samples_;
  std::vector<std::string> classes_;
  int64_t channels_ = 3;
  int64_t native_size_;
  size_t skipped_ = 0;
  bool from_cache_ = false;
  StandInImages stand_ins_;
};

}  // namespace trainer
