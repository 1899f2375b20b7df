// The layout of a zip archive checked before LibTorch's reader (miniz) extracts anything from it:
// miniz takes each record's size from the central directory and allocates it whole, and reads
// entries wherever their offsets point, so a hostile archive could claim terabytes or make
// entries share bytes (the overlapping layout of zip bombs). torch.save never writes either.
//
// It also keeps each entry's CRC-32 from the central directory: LibTorch builds miniz without its
// CRC checks, so without ours a checkpoint with a flipped byte in its tensors would load.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace trainer {

// The CRC-32 of each entry's uncompressed bytes, by its name below the archive's top folder
// (torch.save writes "NAME/data.pkl", "NAME/data/0"…; LibTorch's reader asks for "data.pkl").
class ZipChecksums {
 public:
  ZipChecksums(std::string path, std::map<std::string, uint32_t> crc32_by_record)
      : path_(std::move(path)), crc32_by_record_(std::move(crc32_by_record)) {}
  // Throws UserError naming the file and the record unless `bytes` are what was written.
  void verify(const std::string& record, const void* bytes, size_t size) const;

 private:
  std::string path_;
  std::map<std::string, uint32_t> crc32_by_record_;
};

// Throws UserError naming `path` unless its central directory lies inside the file and each
// entry's local header and data lie before that directory, without overlapping another entry,
// stored (then as large as it says it is) or deflated (then at most deflate's 1032:1 larger).
// Zip64 sizes and offsets are read. Returns the entries' checksums for the records read later.
ZipChecksums check_zip_layout(const std::string& path);

}  // namespace trainer
