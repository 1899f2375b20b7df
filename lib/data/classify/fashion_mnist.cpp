#include "data/classify/fashion_mnist.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "util/error.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kImagesMagic = 0x00000803;  // unsigned bytes, 3 dimensions
constexpr uint32_t kLabelsMagic = 0x00000801;  // unsigned bytes, 1 dimension

const std::vector<std::string> kClassNames{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                           "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

// gzread passes files without a gzip header through unchanged, so one reader serves both forms.
std::vector<uint8_t> read_whole(const std::string& path) {
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  if (!file) throw UserError("cannot open " + path + ": " + std::strerror(errno));
  gzbuffer(file.get(), 1 << 20);
  constexpr size_t kChunk = 1 << 20;
  std::vector<uint8_t> bytes;
  for (;;) {
    const size_t used = bytes.size();
    bytes.resize(used + kChunk);
    const int got = gzread(file.get(), bytes.data() + used, kChunk);
    int code = Z_OK;
    const char* message = gzerror(file.get(), &code);
    // A truncated gzip stream reads as a short file with Z_BUF_ERROR set, not as a failed read.
    if (got < 0 || code != Z_OK) {
      // zlib prefixes its message with the path already.
      std::string reason = message;
      if (reason.rfind(path + ": ", 0) == 0) reason.erase(0, path.size() + 2);
      throw UserError(path + " is not a readable gzip/IDX file: " + reason);
    }
    bytes.resize(used + static_cast<size_t>(got));
    if (got == 0) return bytes;
  }
}

uint32_t big_endian(const std::vector<uint8_t>& bytes, size_t offset) {
  return (uint32_t{bytes[offset]} << 24) | (uint32_t{bytes[offset + 1]} << 16) |
         (uint32_t{bytes[offset + 2]} << 8) | uint32_t{bytes[offset + 3]};
}

void check_magic(const std::string& path, const std::vector<uint8_t>& bytes, uint32_t expected,
                 size_t header_size, const char* kind) {
  if (bytes.size() < header_size) {
    throw UserError(path + " is too short (" + std::to_string(bytes.size()) +
                    " bytes) to hold an IDX " + kind + " header");
  }
  const uint32_t magic = big_endian(bytes, 0);
  if (magic != expected) {
    char text[96];
    std::snprintf(text, sizeof text, " has magic number 0x%08X, expected 0x%08X for IDX %s", magic,
                  expected, kind);
    throw UserError(path + text);
  }
}

// Compares the item count the header promises with what the payload holds, without multiplying
// header fields (a corrupt header could overflow the product).
void check_count(const std::string& path, size_t payload, uint64_t item_bytes, uint64_t count) {
  const uint64_t held = payload / item_bytes;
  if (held == count && payload % item_bytes == 0) return;
  const char* problem = held < count ? " is truncated" : " has trailing bytes";
  throw UserError(path + problem + ": the header promises " + std::to_string(count) + " items of " +
                  std::to_string(item_bytes) + " bytes, the file holds " + std::to_string(payload) +
                  " bytes after the header");
}

std::string idx_path(const fs::path& dir, const std::string& stem) {
  for (const auto& candidate : {dir / (stem + ".gz"), dir / stem}) {
    std::error_code error;
    if (fs::is_regular_file(candidate, error)) return candidate.string();
  }
  throw UserError("IDX directory " + dir.string() + " lacks " + stem + "[.gz]");
}

const std::vector<std::string> kIdxStems{"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                         "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};

}  // namespace

IdxImages read_idx_images(const std::string& path) {
  constexpr size_t kHeader = 16;
  std::vector<uint8_t> bytes = read_whole(path);
  check_magic(path, bytes, kImagesMagic, kHeader, "images");
  IdxImages images;
  const uint32_t count = big_endian(bytes, 4);
  images.rows = big_endian(bytes, 8);
  images.cols = big_endian(bytes, 12);
  if (count == 0 || images.rows == 0 || images.cols == 0) {
    throw UserError(path + " holds no pixels: header says " + std::to_string(count) + " images of " +
                    std::to_string(images.rows) + "x" + std::to_string(images.cols));
  }
  check_count(path, bytes.size() - kHeader, uint64_t(images.rows) * uint64_t(images.cols), count);
  images.count = count;
  bytes.erase(bytes.begin(), bytes.begin() + kHeader);
  bytes.shrink_to_fit();
  images.pixels = std::move(bytes);
  return images;
}

std::vector<uint8_t> read_idx_labels(const std::string& path) {
  constexpr size_t kHeader = 8;
  std::vector<uint8_t> bytes = read_whole(path);
  check_magic(path, bytes, kLabelsMagic, kHeader, "labels");
  check_count(path, bytes.size() - kHeader, 1, big_endian(bytes, 4));
  bytes.erase(bytes.begin(), bytes.begin() + kHeader);
  bytes.shrink_to_fit();
  return bytes;
}

bool holds_idx_files(const std::string& dir) {
  for (const auto& stem : kIdxStems) {
    std::error_code error;
    if (fs::is_regular_file(fs::path(dir) / stem, error) ||
        fs::is_regular_file(fs::path(dir) / (stem + ".gz"), error)) {
      return true;
    }
  }
  return false;
}

FashionMnist::FashionMnist(const std::string& dir, Split split) {
  const std::string prefix = split == Split::train ? "train" : "t10k";
  const std::string images_path = idx_path(dir, prefix + "-images-idx3-ubyte");
  const std::string labels_path = idx_path(dir, prefix + "-labels-idx1-ubyte");
  images_ = read_idx_images(images_path);
  labels_ = read_idx_labels(labels_path);
  if (images_.rows != images_.cols) {
    throw UserError(images_path + " holds " + std::to_string(images_.rows) + "x" +
                    std::to_string(images_.cols) + " images; only square images are supported");
  }
  if (labels_.size() != images_.count) {
    throw UserError(labels_path + " holds " + std::to_string(labels_.size()) + " labels but " +
                    images_path + " holds " + std::to_string(images_.count) + " images");
  }
  for (size_t i = 0; i < labels_.size(); ++i) {
    if (labels_[i] >= kClassNames.size()) {
      throw UserError(labels_path + ": label " + std::to_string(labels_[i]) + " at item " +
                      std::to_string(i) + " is outside the " + std::to_string(kClassNames.size()) +
                      " Fashion-MNIST classes");
    }
  }
}

cv::Mat FashionMnist::image(size_t i) const {
  TORCH_INTERNAL_ASSERT(i < images_.count, "image index ", i, " out of range ", images_.count);
  const size_t pixels = size_t(images_.rows) * size_t(images_.cols);
  // A copy, so callers may modify the image without touching the shared in-memory set.
  return cv::Mat(int(images_.rows), int(images_.cols), CV_8UC1,
                 const_cast<uint8_t*>(images_.pixels.data() + i * pixels))
      .clone();
}

const std::vector<std::string>& FashionMnist::class_names() const { return kClassNames; }

}  // namespace trainer
