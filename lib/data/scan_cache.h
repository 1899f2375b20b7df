// The file layer under the caches of data set scans (the detection label cache, the image folder
// cache): a header naming the cache kind, a payload of records, and a checksum, written
// atomically. A later run that finds the same header and an intact file reads the records
// instead of decoding every image again; anything else reads as no cache.
#pragma once
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <type_traits>

#include "data/read_image.h"
#include "util/fnv1a.h"

namespace trainer {

struct FileStamp {
  int64_t size = -1;  ///< bytes; -1 when the file does not exist
  int64_t mtime_ns = 0;
  bool operator==(const FileStamp& other) const { return size == other.size && mtime_ns == other.mtime_ns; }
};
FileStamp stamp_of(const std::string& path);

// Native byte order: a cache is a local speed-up, never moved between machines.
class CacheWriter {
 public:
  template <typename T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof(value));
  }
  void put(const std::string& text) {
    put(uint32_t(text.size()));
    bytes_ += text;
  }
  void put(const FileStamp& stamp) {
    put(stamp.size);
    put(stamp.mtime_ns);
  }
  void put(const CheckedImage& image) {
    put(int32_t(image.size.width));
    put(int32_t(image.size.height));
    put(uint8_t(image.channels));
    put(uint8_t(image.jpeg));
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

// Every read is bounds-checked: a truncated or garbled file turns ok() false instead of crashing.
class CacheReader {
 public:
  explicit CacheReader(const std::string& bytes) : bytes_(bytes) {}
  template <typename T>
  T get() {
    T value{};
    if (!take(sizeof(T))) return value;
    std::memcpy(&value, bytes_.data() + offset_ - sizeof(T), sizeof(T));
    return value;
  }
  std::string get_string();
  FileStamp get_stamp();
  CheckedImage get_checked_image();
  // A count read from the file, refused when not even one byte per item is left.
  uint32_t get_count();
  bool ok() const { return ok_; }
  bool at_end() const { return offset_ == bytes_.size(); }

 private:
  bool take(size_t size);
  const std::string& bytes_;
  size_t offset_ = 0;
  bool ok_ = true;
};

// `header` is what makes records comparable: the cache's kind, format version and anything the
// records depend on besides the files themselves (a class count). The payload after it when
// `cache` starts with exactly that header and its checksum holds; nullopt when it is missing,
// of another header or corrupt.
std::optional<std::string> read_cache_payload(const std::filesystem::path& cache, const std::string& header);
// Writes header, payload and checksum atomically; throws std::exception when the folder is not
// writable.
void write_cache_file(const std::filesystem::path& cache, const std::string& header, const std::string& payload);

}  // namespace trainer
