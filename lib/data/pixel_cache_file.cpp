#include "data/pixel_cache_file.h"

#include <c10/util/Exception.h>
#include <fcntl.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "data/jpeg_region.h"
#include "util/error.h"

namespace trainer {

namespace {

constexpr char kMagic[8] = {'T', 'R', 'P', 'I', 'X', 'v', '0', '1'};

struct Footer {
  char magic[8];
  uint64_t key, count, index_offset;
};
static_assert(sizeof(Footer) == 32);

using Record = PixelCacheRecord;

bool plausible(const Record& record, uint64_t index_offset) {
  if (record.offset > index_offset || record.length > index_offset - record.offset) return false;
  const auto encoding = PixelEncoding(record.encoding);
  if (encoding == PixelEncoding::missing) return true;
  if (record.width <= 0 || record.height <= 0 || (record.channels != 1 && record.channels != 3)) return false;
  if (encoding == PixelEncoding::raw) {
    return record.length == uint64_t(record.width) * uint64_t(record.height) * record.channels;
  }
  return encoding == PixelEncoding::jpeg;
}

}  // namespace

EncodedImage encode_for_cache(const cv::Mat& image, int quality) {
  EncodedImage encoded;
  if (image.empty()) return encoded;
  TORCH_INTERNAL_ASSERT(image.depth() == CV_8U && (image.channels() == 1 || image.channels() == 3));
  encoded.width = image.cols;
  encoded.height = image.rows;
  encoded.channels = uint8_t(image.channels());
  if (int64_t(image.total()) <= kRawPixelLimit) {
    const cv::Mat packed = image.isContinuous() ? image : image.clone();
    encoded.bytes.assign(reinterpret_cast<const char*>(packed.data), packed.total() * packed.elemSize());
    encoded.encoding = PixelEncoding::raw;
    return encoded;
  }
  cv::Mat bgr;  // a fresh buffer: converting into a copy of `image`'s header would convert the caller's pixels
  if (image.channels() == 3) {
    cv::cvtColor(image, bgr, cv::COLOR_RGB2BGR);
  } else {
    bgr = image;
  }
  std::vector<uint8_t> bytes;
  if (!cv::imencode(".jpg", bgr, bytes, {cv::IMWRITE_JPEG_QUALITY, quality})) {
    throw UserError("cannot encode a " + std::to_string(image.cols) + "x" + std::to_string(image.rows) +
                    " image as JPEG for the disk cache");
  }
  encoded.bytes.assign(bytes.begin(), bytes.end());
  encoded.encoding = PixelEncoding::jpeg;
  return encoded;
}

PixelCacheWriter::PixelCacheWriter(const std::filesystem::path& path)
    : path_(path), out_(path, std::ios::binary | std::ios::trunc) {
  if (!out_) throw UserError("cannot write the disk cache " + path.string());
}

void PixelCacheWriter::add(const EncodedImage& image) {
  Record record;
  record.offset = offset_;
  record.length = image.bytes.size();
  record.width = image.width;
  record.height = image.height;
  record.channels = image.channels;
  record.encoding = uint8_t(image.encoding);
  records_.push_back(record);
  out_.write(image.bytes.data(), std::streamsize(image.bytes.size()));
  offset_ += image.bytes.size();
}

void PixelCacheWriter::finish(uint64_t key) {
  out_.write(reinterpret_cast<const char*>(records_.data()), std::streamsize(records_.size() * sizeof(Record)));
  Footer footer{};
  std::memcpy(footer.magic, kMagic, sizeof(kMagic));
  footer.key = key;
  footer.count = records_.size();
  footer.index_offset = offset_;
  out_.write(reinterpret_cast<const char*>(&footer), sizeof(footer));
  out_.close();
  if (!out_) throw UserError("cannot write the disk cache " + path_.string() + " (is the disk full?)");
}

std::unique_ptr<PixelCacheFile> PixelCacheFile::open(const std::filesystem::path& path, uint64_t key) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat status {};
  const bool sized = ::fstat(fd, &status) == 0 && size_t(status.st_size) >= sizeof(Footer);
  void* mapped = sized ? ::mmap(nullptr, size_t(status.st_size), PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
  ::close(fd);  // the mapping keeps the file open
  if (mapped == MAP_FAILED) return nullptr;
  const auto* data = static_cast<const uint8_t*>(mapped);
  const size_t length = size_t(status.st_size);
  Footer footer{};
  std::memcpy(&footer, data + length - sizeof(Footer), sizeof(Footer));
  const size_t index_end = length - sizeof(Footer);
  const bool framed = std::memcmp(footer.magic, kMagic, sizeof(kMagic)) == 0 && footer.key == key &&
                      footer.index_offset <= index_end && footer.count <= index_end / sizeof(Record) &&
                      index_end - footer.index_offset == footer.count * sizeof(Record);
  std::vector<Entry> entries;
  for (uint64_t i = 0; framed && i < footer.count; ++i) {
    Record record;
    std::memcpy(&record, data + footer.index_offset + i * sizeof(Record), sizeof(Record));
    if (!plausible(record, footer.index_offset)) break;
    entries.push_back({record.offset, record.length, cv::Size(record.width, record.height), record.channels,
                       PixelEncoding(record.encoding)});
  }
  if (!framed || entries.size() != footer.count) {
    ::munmap(mapped, length);
    return nullptr;
  }
  return std::unique_ptr<PixelCacheFile>(new PixelCacheFile(path, data, length, std::move(entries)));
}

PixelCacheFile::PixelCacheFile(std::filesystem::path path, const uint8_t* data, size_t length,
                               std::vector<Entry> entries)
    : path_(std::move(path)), data_(data), length_(length), entries_(std::move(entries)) {}

PixelCacheFile::~PixelCacheFile() { ::munmap(const_cast<uint8_t*>(data_), length_); }

cv::Size PixelCacheFile::image_size(size_t i) const {
  const Entry& entry = entries_.at(i);
  return entry.encoding == PixelEncoding::missing ? cv::Size() : entry.size;
}

PixelEncoding PixelCacheFile::encoding(size_t i) const { return entries_.at(i).encoding; }

cv::Mat PixelCacheFile::image(size_t i, const cv::Rect& region, int reduction) const {
  const Entry& entry = entries_.at(i);
  const cv::Rect whole(cv::Point(), entry.size);
  const cv::Rect wanted = region.empty() ? whole : region & whole;
  switch (entry.encoding) {
    case PixelEncoding::missing:
      return {};
    case PixelEncoding::raw: {
      TORCH_INTERNAL_ASSERT(reduction == 1, "a raw cache entry has no reduced decode");
      const cv::Mat stored(entry.size, entry.channels == 1 ? CV_8UC1 : CV_8UC3,
                           const_cast<uint8_t*>(data_ + entry.offset));
      return stored(wanted).clone();
    }
    case PixelEncoding::jpeg:
      break;
  }
  const std::string name = path_.string() + " (entry " + std::to_string(i) + ")";
  std::optional<cv::Mat> pixels =
      read_jpeg_region(data_ + entry.offset, size_t(entry.length), name, entry.channels, wanted, reduction);
  if (!pixels) throw UserError("cannot read image " + name + ": the disk cache is damaged; delete it to rebuild");
  return *pixels;
}

}  // namespace trainer
