#include "io/zip_layout.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <vector>

#include <zlib.h>

#include "util/error.h"

namespace trainer {
namespace {

constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr uint32_t kDirectorySignature = 0x02014b50;
constexpr uint32_t kLocalSignature = 0x04034b50;
constexpr uint64_t kEndSize = 22, kLocatorSize = 20, kZip64EndSize = 56, kDirectorySize = 46, kLocalSize = 30;
constexpr uint64_t kMaxDeflateRatio = 1032;  // deflate's best case: 258 bytes per 2-bit code

uint64_t little_endian(const std::string& bytes, size_t at, int count) {
  uint64_t value = 0;
  for (int i = count - 1; i >= 0; --i) value = (value << 8) | uint8_t(bytes[at + i]);
  return value;
}

class Archive {
 public:
  explicit Archive(const std::string& path) : path_(path), in_(path, std::ios::binary | std::ios::ate) {
    if (!in_) throw UserError("cannot open '" + path + "'");
    size_ = uint64_t(in_.tellg());
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw UserError("'" + path_ + "' is not a readable torch.save file: its zip archive is corrupt: " + what);
  }
  uint64_t size() const { return size_; }
  std::string read(uint64_t offset, uint64_t count) {
    if (offset > size_ || count > size_ - offset) fail("a record reaches past the end of the file");
    std::string bytes(count, '\0');
    in_.seekg(std::streamoff(offset));
    if (!in_.read(bytes.data(), std::streamsize(count))) fail("the file cannot be read");
    return bytes;
  }

 private:
  std::string path_;
  std::ifstream in_;
  uint64_t size_ = 0;
};

struct Directory {
  uint64_t offset = 0, size = 0, entries = 0;
};

// The end record is the last 22 bytes but for a comment of up to 64 KiB; zip64 puts a locator
// right before it that points to the 64-bit end record.
Directory find_directory(Archive& archive) {
  const uint64_t tail = std::min<uint64_t>(archive.size(), kEndSize + 0xFFFF);
  const std::string bytes = archive.read(archive.size() - tail, tail);
  for (uint64_t at = tail >= kEndSize ? tail - kEndSize + 1 : 0; at-- > 0;) {
    if (little_endian(bytes, at, 4) != kEndSignature) continue;
    const uint64_t end = archive.size() - tail + at;
    Directory directory{little_endian(bytes, at + 16, 4), little_endian(bytes, at + 12, 4),
                        little_endian(bytes, at + 10, 2)};
    if (end >= kLocatorSize && little_endian(archive.read(end - kLocatorSize, 4), 0, 4) == kZip64LocatorSignature) {
      const uint64_t zip64_end = little_endian(archive.read(end - kLocatorSize + 8, 8), 0, 8);
      const std::string record = archive.read(zip64_end, kZip64EndSize);
      if (little_endian(record, 0, 4) != kZip64EndSignature) archive.fail("the zip64 end record is missing");
      directory = {little_endian(record, 48, 8), little_endian(record, 40, 8), little_endian(record, 32, 8)};
    }
    if (directory.offset > end || directory.size > end - directory.offset) {
      archive.fail("the central directory lies outside the file");
    }
    return directory;
  }
  archive.fail("no end of central directory record");
}

struct Entry {
  std::string name;
  uint64_t begin = 0, end = 0;  ///< the local header up to the end of the data
  uint32_t crc32 = 0;
};

// The 64-bit values of a zip64 extra field, in the order of the 32-bit fields they replace.
void read_zip64_extra(const std::string& extra, uint64_t& uncompressed, uint64_t& compressed, uint64_t& offset) {
  for (size_t at = 0; at + 4 <= extra.size();) {
    const uint64_t id = little_endian(extra, at, 2), length = little_endian(extra, at + 2, 2);
    if (id == 1) {
      size_t field = at + 4;
      for (uint64_t* value : {&uncompressed, &compressed, &offset}) {
        if (*value == 0xFFFFFFFF && field + 8 <= at + 4 + length && field + 8 <= extra.size()) {
          *value = little_endian(extra, field, 8);
          field += 8;
        }
      }
    }
    at += 4 + length;
  }
}

Entry read_entry(Archive& archive, const std::string& directory, size_t& at, uint64_t directory_offset) {
  if (at + kDirectorySize > directory.size() || little_endian(directory, at, 4) != kDirectorySignature) {
    archive.fail("the central directory is truncated");
  }
  const uint64_t method = little_endian(directory, at + 10, 2);
  uint64_t compressed = little_endian(directory, at + 20, 4), uncompressed = little_endian(directory, at + 24, 4);
  const uint64_t name_size = little_endian(directory, at + 28, 2), extra_size = little_endian(directory, at + 30, 2);
  const uint64_t comment_size = little_endian(directory, at + 32, 2);
  uint64_t offset = little_endian(directory, at + 42, 4);
  if (at + kDirectorySize + name_size + extra_size + comment_size > directory.size()) {
    archive.fail("the central directory is truncated");
  }
  Entry entry{directory.substr(at + kDirectorySize, name_size)};
  entry.crc32 = uint32_t(little_endian(directory, at + 16, 4));
  read_zip64_extra(directory.substr(at + kDirectorySize + name_size, extra_size), uncompressed, compressed, offset);
  at += kDirectorySize + name_size + extra_size + comment_size;
  const std::string what = "entry '" + entry.name + "'";
  if (method != 0 && method != 8) archive.fail(what + " is compressed with method " + std::to_string(method));
  if (method == 0 ? uncompressed != compressed : uncompressed / kMaxDeflateRatio > compressed) {
    archive.fail(what + " claims " + std::to_string(uncompressed) + " bytes from " + std::to_string(compressed));
  }
  if (offset > directory_offset || kLocalSize > directory_offset - offset) {
    archive.fail(what + " starts outside the archive's data");
  }
  const std::string local = archive.read(offset, kLocalSize);
  if (little_endian(local, 0, 4) != kLocalSignature) archive.fail(what + " has no local header");
  const uint64_t header = kLocalSize + little_endian(local, 26, 2) + little_endian(local, 28, 2);
  if (header > directory_offset - offset || compressed > directory_offset - offset - header) {
    archive.fail(what + " reaches past the archive's data");
  }
  entry.begin = offset;
  entry.end = offset + header + compressed;
  return entry;
}

// The name LibTorch's reader asks for: the part after the archive's top folder.
std::string record_name(const std::string& entry_name) {
  const size_t slash = entry_name.find('/');
  return slash == std::string::npos ? entry_name : entry_name.substr(slash + 1);
}

}  // namespace

void ZipChecksums::verify(const std::string& record, const void* bytes, size_t size) const {
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  // The fuzz build (tests/fuzz) mutates entries without fixing their checksums; checking them
  // would stop nearly every input before the unpickler it is there to reach.
  return;
#endif
  const auto found = crc32_by_record_.find(record);
  if (found == crc32_by_record_.end()) return;  // LibTorch's reader has already refused a missing record
  uLong crc = crc32(0L, Z_NULL, 0);
  for (size_t done = 0; done < size;) {  // zlib's length is 32-bit
    const size_t chunk = std::min<size_t>(size - done, 1u << 30);
    crc = crc32(crc, static_cast<const Bytef*>(bytes) + done, uInt(chunk));
    done += chunk;
  }
  if (uint32_t(crc) != found->second) {
    throw UserError("'" + path_ + "' is not a readable torch.save file: its zip archive is corrupt: entry '" + record +
                    "' fails its CRC-32 check (its bytes changed after they were written)");
  }
}

ZipChecksums check_zip_layout(const std::string& path) {
  Archive archive(path);
  const Directory found = find_directory(archive);
  // Each entry takes at least 46 bytes of the directory, which bounds the count before anything
  // is allocated for it.
  if (found.entries > found.size / kDirectorySize) archive.fail("the central directory is truncated");
  const std::string directory = archive.read(found.offset, found.size);
  std::vector<Entry> entries;
  size_t at = 0;
  for (uint64_t i = 0; i < found.entries; ++i) entries.push_back(read_entry(archive, directory, at, found.offset));
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
  std::map<std::string, uint32_t> crc32_by_record;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0 && entries[i].begin < entries[i - 1].end) {
      archive.fail("entries '" + entries[i - 1].name + "' and '" + entries[i].name +
                   "' overlap (a zip bomb's layout; torch.save never writes one)");
    }
    crc32_by_record.emplace(record_name(entries[i].name), entries[i].crc32);
  }
  return ZipChecksums(path, std::move(crc32_by_record));
}

}  // namespace trainer
