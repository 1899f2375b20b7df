// Writes small IDX files (Fashion-MNIST's format), plain or gzip-compressed, for tests to read.
#pragma once
#include <zlib.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace trainer::testing {

inline void put_u32(std::vector<uint8_t>& bytes, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(uint8_t(value >> shift));
}

inline std::vector<uint8_t> idx_images(uint32_t count, uint32_t rows, uint32_t cols) {
  std::vector<uint8_t> bytes;
  put_u32(bytes, 0x00000803);
  put_u32(bytes, count);
  put_u32(bytes, rows);
  put_u32(bytes, cols);
  // Pixel value = (image * 31 + position) mod 256, so each image is recognisable.
  for (uint32_t i = 0; i < count; ++i)
    for (uint32_t p = 0; p < rows * cols; ++p) bytes.push_back(uint8_t(i * 31 + p));
  return bytes;
}

inline std::vector<uint8_t> idx_labels(const std::vector<uint8_t>& labels) {
  std::vector<uint8_t> bytes;
  put_u32(bytes, 0x00000801);
  put_u32(bytes, uint32_t(labels.size()));
  bytes.insert(bytes.end(), labels.begin(), labels.end());
  return bytes;
}

inline void write_file(const std::string& path, const std::vector<uint8_t>& bytes, bool gzip) {
  if (gzip) {
    gzFile file = gzopen(path.c_str(), "wb");
    gzwrite(file, bytes.data(), unsigned(bytes.size()));
    gzclose(file);
  } else {
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), long(bytes.size()));
  }
}

// The four files of an IDX directory: `train` images in train-*, `val` images in t10k-*.
inline void write_idx_dir(const std::string& dir, uint32_t train, uint32_t val, uint32_t side, bool gzip) {
  const std::string ext = gzip ? ".gz" : "";
  for (const auto& [prefix, count] : {std::pair{"train", train}, std::pair{"t10k", val}}) {
    std::vector<uint8_t> labels;
    for (uint32_t i = 0; i < count; ++i) labels.push_back(uint8_t(i % 10));
    write_file(dir + "/" + prefix + "-images-idx3-ubyte" + ext, idx_images(count, side, side), gzip);
    write_file(dir + "/" + prefix + "-labels-idx1-ubyte" + ext, idx_labels(labels), gzip);
  }
}

}  // namespace trainer::testing
