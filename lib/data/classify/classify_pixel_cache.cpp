#include "data/classify/classify_pixel_cache.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "data/read_image.h"
#include "data/resize_image.h"

namespace trainer {
namespace {

// The source's labels and facts, the cache's pixels; a sample the cache holds no copy of (its
// file could not be read while the cache was built) reads the source.
class CachedImageDataset : public ImageDataset {
 public:
  CachedImageDataset(std::unique_ptr<ImageDataset> source, std::shared_ptr<const PixelCacheFile> cache)
      : source_(std::move(source)), cache_(std::move(cache)) {}

  size_t size() const override { return source_->size(); }
  cv::Mat image(size_t i) const override { return cached(i) ? cache_->image(i) : source_->image(i); }
  ImageGeometry geometry(size_t i) const override {
    if (!cached(i)) return source_->geometry(i);
    return {cache_->image_size(i), cache_->encoding(i) == PixelEncoding::jpeg ? 8 : 1};
  }
  cv::Mat reduced_image(size_t i, int reduction) const override {
    return cached(i) ? cache_->image(i, {}, reduction) : source_->reduced_image(i, reduction);
  }
  cv::Mat region_image(size_t i, const cv::Rect& region, int reduction) const override {
    return cached(i) ? cache_->image(i, region, reduction) : source_->region_image(i, region, reduction);
  }
  std::string path(size_t i) const override { return source_->path(i); }
  int64_t label(size_t i) const override { return source_->label(i); }
  const std::vector<std::string>& class_names() const override { return source_->class_names(); }
  int64_t channels() const override { return source_->channels(); }
  int64_t native_size() const override { return source_->native_size(); }
  Normalization normalization() const override { return source_->normalization(); }

 private:
  bool cached(size_t i) const { return cache_->encoding(i) != PixelEncoding::missing; }
  std::unique_ptr<ImageDataset> source_;
  std::shared_ptr<const PixelCacheFile> cache_;
};

// `size` with its short side `side`, the other rounded up.
cv::Size short_side_size(cv::Size size, int64_t side) {
  if (size.width <= size.height) {
    return {int(side), int(std::ceil(double(size.height) * double(side) / size.width))};
  }
  return {int(std::ceil(double(size.width) * double(side) / size.height)), int(side)};
}

}  // namespace

int64_t cached_short_side(const ClassifyAugment& augment) {
  if (!augment.train) return int64_t(std::ceil(double(augment.imgsz) / augment.crop_fraction));
  if (augment.scale <= 0) return augment.imgsz;
  const double smallest_area = 1.0 - augment.scale;
  if (smallest_area <= 0) return 0;
  return int64_t(std::ceil(double(augment.imgsz) / std::sqrt(smallest_area)));
}

std::unique_ptr<ImageDataset> with_pixel_cache(std::unique_ptr<ImageDataset> source,
                                               const std::filesystem::path& split_folder, bool evaluation,
                                               int64_t short_side, const PixelCacheSettings& settings) {
  if (source->size() == 0 || source->path(0).empty()) {
    spdlog::warn("cache=disk: the data is held in memory already; nothing to cache");
    return source;
  }
  PixelCacheRequest request;
  for (size_t i = 0; i < source->size(); ++i) request.images.push_back(source->path(i));
  request.file = pixel_cache_path(split_folder, settings.cache_dir, evaluation);
  request.purpose = "classify: short side " + std::to_string(short_side) + ", channels " +
                    std::to_string(source->channels());
  request.quality = settings.quality;
  // From the file itself, never a stand-in's pixels: the cache outlives this run's stand-ins.
  const auto make = [&](size_t i) {
    const ImageGeometry geometry = source->geometry(i);
    const int shorter = std::min(geometry.size.width, geometry.size.height);
    if (short_side == 0 || shorter <= short_side) return read_image(source->path(i), source->channels());
    const int reduction = reduction_keeping(shorter, short_side, geometry.max_reduction);
    const cv::Mat decoded = read_image(source->path(i), source->channels(), reduction);
    return resize_to(decoded, short_side_size(decoded.size(), short_side));
  };
  std::shared_ptr<const PixelCacheFile> cache = open_pixel_cache(request, make);
  return std::make_unique<CachedImageDataset>(std::move(source), std::move(cache));
}

}  // namespace trainer
