// The disk cache's file (`cache=disk`): every image of a split, decoded and resized for the task,
// in one file read through a memory map by every loader thread and every rank on the machine.
// Where Ultralytics writes one .npy of raw pixels per image (about 1.2 MB for a 640-px photograph,
// far more than its JPEG), this keeps a re-encoded JPEG at the quality the recipe sets, or the
// raw pixels of small images (where a JPEG saves little and loses detail), back to back.
// Layout: the entries' bytes, then an index of fixed-size records, then a footer (magic, key,
// count, index offset) written last, so a file cut short reads as no cache.
#pragma once
#include <opencv2/core.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace trainer {

enum class PixelEncoding : uint8_t { missing = 0, raw = 1, jpeg = 2 };

// One image as the cache stores it.
struct EncodedImage {
  std::string bytes;
  int32_t width = 0, height = 0;
  uint8_t channels = 0;
  PixelEncoding encoding = PixelEncoding::missing;
};

// Images of at most this many pixels are kept raw (64 x 64: MNIST- and CIFAR-sized data).
constexpr int64_t kRawPixelLimit = 64 * 64;

// uint8 pixels (RGB or grey) as the cache stores them: raw up to kRawPixelLimit, else a JPEG of
// `quality` (1-100). An empty image gives a `missing` entry (a file that could not be read).
EncodedImage encode_for_cache(const cv::Mat& image, int quality);

// An entry's index record in the file. Native byte order and fixed sizes: the file is a local
// speed-up, never moved between machines.
struct PixelCacheRecord {
  uint64_t offset = 0, length = 0;
  int32_t width = 0, height = 0;
  uint8_t channels = 0, encoding = 0;
  uint8_t padding[6] = {};
};
static_assert(sizeof(PixelCacheRecord) == 32);

// Appends entries to a new file, then writes the index and the footer.
class PixelCacheWriter {
 public:
  explicit PixelCacheWriter(const std::filesystem::path& path);
  void add(const EncodedImage& image);
  // Throws UserError naming the file when a write failed (a full disk).
  void finish(uint64_t key);

 private:
  std::filesystem::path path_;
  std::ofstream out_;
  uint64_t offset_ = 0;
  std::vector<PixelCacheRecord> records_;
};

// A finished cache file, mapped read-only. The const methods are safe to call from any thread.
class PixelCacheFile {
 public:
  // nullptr when `path` is missing, cut short, not a cache file, or was built for another key.
  static std::unique_ptr<PixelCacheFile> open(const std::filesystem::path& path, uint64_t key);
  ~PixelCacheFile();
  PixelCacheFile(const PixelCacheFile&) = delete;
  PixelCacheFile& operator=(const PixelCacheFile&) = delete;

  size_t size() const { return entries_.size(); }
  // Empty for a `missing` entry.
  cv::Size image_size(size_t i) const;
  PixelEncoding encoding(size_t i) const;
  // The pixels of entry i at 1/reduction of each side (rounded up; a JPEG entry decoded at that
  // scale, a raw one only at 1), `region` of them in the stored image's pixels (the whole image
  // when empty), uint8 with the channels it was stored with. Throws UserError naming the cache
  // file when an entry does not decode (a damaged file).
  cv::Mat image(size_t i, const cv::Rect& region = {}, int reduction = 1) const;
  const std::filesystem::path& path() const { return path_; }
  int64_t file_bytes() const { return int64_t(length_); }

 private:
  struct Entry {
    uint64_t offset, length;
    cv::Size size;
    uint8_t channels;
    PixelEncoding encoding;
  };
  PixelCacheFile(std::filesystem::path path, const uint8_t* data, size_t length, std::vector<Entry> entries);

  std::filesystem::path path_;
  const uint8_t* data_;
  size_t length_;
  std::vector<Entry> entries_;
};

}  // namespace trainer
