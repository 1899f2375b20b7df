#include "data/label_cache.h"

#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <type_traits>

#include "util/atomic_file.h"

namespace trainer {
namespace {

// Native byte order: the cache is a local speed-up, never moved between machines.
constexpr char kMagic[] = "trainer-label-cache";
constexpr uint32_t kFormatVersion = 1;

// FNV-1a over the payload; catches truncation and bit rot, not tampering.
uint64_t checksum(const std::string& bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (const char byte : bytes) hash = (hash ^ uint8_t(byte)) * 0x100000001b3ull;
  return hash;
}

class Writer {
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
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

// Every read is bounds-checked: a truncated or garbled file turns ok() false instead of crashing.
class Reader {
 public:
  Reader(const std::string& bytes, size_t offset) : bytes_(bytes), offset_(offset) {}
  template <typename T>
  T get() {
    T value{};
    if (!take(sizeof(T))) return value;
    std::memcpy(&value, bytes_.data() + offset_ - sizeof(T), sizeof(T));
    return value;
  }
  std::string get_string() {
    const uint32_t size = get<uint32_t>();
    if (!take(size)) return {};
    return bytes_.substr(offset_ - size, size);
  }
  // A count read from the file, refused when not even one byte per item is left.
  uint32_t get_count() {
    const uint32_t count = get<uint32_t>();
    if (count > bytes_.size() - offset_) ok_ = false;
    return ok_ ? count : 0;
  }
  bool ok() const { return ok_; }
  bool at_end() const { return offset_ == bytes_.size(); }

 private:
  bool take(size_t size) {
    if (!ok_ || size > bytes_.size() - offset_) return ok_ = false;
    offset_ += size;
    return true;
  }
  const std::string& bytes_;
  size_t offset_;
  bool ok_ = true;
};

void put_stamp(Writer& out, const FileStamp& stamp) {
  out.put(stamp.size);
  out.put(stamp.mtime_ns);
}

FileStamp get_stamp(Reader& in) {
  FileStamp stamp;
  stamp.size = in.get<int64_t>();
  stamp.mtime_ns = in.get<int64_t>();
  return stamp;
}

void put_record(Writer& out, const ScannedImage& record) {
  out.put(record.key.image);
  put_stamp(out, record.key.image_stamp);
  put_stamp(out, record.key.label_stamp);
  out.put(record.width);
  out.put(record.height);
  out.put(uint8_t(record.labels.found));
  out.put(record.labels.duplicates);
  out.put(uint32_t(record.labels.boxes.size()));
  for (const YoloBox& box : record.labels.boxes) {
    out.put(box.cls);
    for (const float value : {box.cx, box.cy, box.w, box.h}) out.put(value);
  }
  out.put(uint32_t(record.labels.problems.size()));
  for (const std::string& problem : record.labels.problems) out.put(problem);
}

ScannedImage get_record(Reader& in) {
  ScannedImage record;
  record.key.image = in.get_string();
  record.key.image_stamp = get_stamp(in);
  record.key.label_stamp = get_stamp(in);
  record.width = in.get<int32_t>();
  record.height = in.get<int32_t>();
  record.labels.found = in.get<uint8_t>() != 0;
  record.labels.duplicates = in.get<int64_t>();
  record.labels.boxes.resize(in.get_count());
  for (YoloBox& box : record.labels.boxes) {
    box.cls = in.get<int64_t>();
    for (float* value : {&box.cx, &box.cy, &box.w, &box.h}) *value = in.get<float>();
  }
  record.labels.problems.resize(in.get_count());
  for (std::string& problem : record.labels.problems) problem = in.get_string();
  return record;
}

std::string header(int64_t classes, size_t count) {
  Writer out;
  out.put(std::string(kMagic));
  out.put(kFormatVersion);
  out.put(classes);
  out.put(uint64_t(count));
  return out.bytes();
}

}  // namespace

FileStamp stamp_of(const std::string& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) return {};
  return {int64_t(status.st_size), int64_t(status.st_mtim.tv_sec) * 1000000000 + status.st_mtim.tv_nsec};
}

std::optional<std::vector<ScannedImage>> read_label_cache(const std::filesystem::path& cache,
                                                          const std::vector<LabelCacheKey>& keys, int64_t classes) {
  std::ifstream file(cache, std::ios::binary);
  if (!file) return std::nullopt;
  std::stringstream buffer;
  buffer << file.rdbuf();
  const std::string bytes = buffer.str();
  const std::string expected_header = header(classes, keys.size());
  if (bytes.size() < expected_header.size() + sizeof(uint64_t) ||
      bytes.compare(0, expected_header.size(), expected_header) != 0) {
    return std::nullopt;
  }
  const std::string payload = bytes.substr(0, bytes.size() - sizeof(uint64_t));
  uint64_t stored_checksum = 0;
  std::memcpy(&stored_checksum, bytes.data() + payload.size(), sizeof(stored_checksum));
  if (stored_checksum != checksum(payload)) return std::nullopt;

  Reader in(payload, expected_header.size());
  std::vector<ScannedImage> records;
  records.reserve(keys.size());
  for (const LabelCacheKey& key : keys) {
    records.push_back(get_record(in));
    if (!in.ok() || !(records.back().key == key)) return std::nullopt;
  }
  if (!in.at_end()) return std::nullopt;
  return records;
}

void write_label_cache(const std::filesystem::path& cache, const std::vector<ScannedImage>& records, int64_t classes) {
  Writer out;
  for (const ScannedImage& record : records) put_record(out, record);
  std::string bytes = header(classes, records.size()) + out.bytes();
  const uint64_t sum = checksum(bytes);
  bytes.append(reinterpret_cast<const char*>(&sum), sizeof(sum));
  write_file_atomically(cache, bytes);
}

}  // namespace trainer
