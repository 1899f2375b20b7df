#include "data/scan_cache.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "util/atomic_file.h"

namespace trainer {

FileStamp stamp_of(const std::string& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) return {};
  return {int64_t(status.st_size), int64_t(status.st_mtim.tv_sec) * 1000000000 + status.st_mtim.tv_nsec};
}

std::string CacheReader::get_string() {
  const uint32_t size = get<uint32_t>();
  if (!take(size)) return {};
  return bytes_.substr(offset_ - size, size);
}

FileStamp CacheReader::get_stamp() {
  FileStamp stamp;
  stamp.size = get<int64_t>();
  stamp.mtime_ns = get<int64_t>();
  return stamp;
}

CheckedImage CacheReader::get_checked_image() {
  CheckedImage image;
  image.size.width = get<int32_t>();
  image.size.height = get<int32_t>();
  image.channels = get<uint8_t>();
  image.jpeg = get<uint8_t>() != 0;
  return image;
}

uint32_t CacheReader::get_count() {
  const uint32_t count = get<uint32_t>();
  if (count > bytes_.size() - offset_) ok_ = false;
  return ok_ ? count : 0;
}

bool CacheReader::take(size_t size) {
  if (!ok_ || size > bytes_.size() - offset_) return ok_ = false;
  offset_ += size;
  return true;
}

std::optional<std::string> read_cache_payload(const std::filesystem::path& cache, const std::string& header) {
  std::ifstream file(cache, std::ios::binary);
  if (!file) return std::nullopt;
  std::stringstream buffer;
  buffer << file.rdbuf();
  const std::string bytes = buffer.str();
  if (bytes.size() < header.size() + sizeof(uint64_t) || bytes.compare(0, header.size(), header) != 0) {
    return std::nullopt;
  }
  const size_t checked = bytes.size() - sizeof(uint64_t);
  uint64_t stored_checksum = 0;
  std::memcpy(&stored_checksum, bytes.data() + checked, sizeof(stored_checksum));
  if (stored_checksum != fnv1a(std::string_view(bytes).substr(0, checked))) return std::nullopt;
  return bytes.substr(header.size(), checked - header.size());
}

void write_cache_file(const std::filesystem::path& cache, const std::string& header, const std::string& payload) {
  std::string bytes = header + payload;
  const uint64_t sum = fnv1a(bytes);  // over header and payload
  bytes.append(reinterpret_cast<const char*>(&sum), sizeof(sum));
  write_file_atomically(cache, bytes);
}

}  // namespace trainer
