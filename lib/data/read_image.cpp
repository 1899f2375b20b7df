#include "data/read_image.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <array>
#include <fstream>

#include "util/error.h"
#include "util/text.h"

namespace trainer {

cv::Mat read_image(const std::string& path, int64_t channels) {
  cv::Mat image;
  try {
    image = cv::imread(path, channels == 1 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR);
  } catch (const cv::Exception& error) {
    throw UserError("cannot read image " + path + ": " + error.what());
  }
  if (image.empty()) throw UserError("cannot read image " + path);
  if (channels == 3) cv::cvtColor(image, image, cv::COLOR_BGR2RGB);
  return image;
}

namespace {

uint32_t big_endian(const unsigned char* bytes, int count) {
  uint32_t value = 0;
  for (int i = 0; i < count; ++i) value = (value << 8) | bytes[i];
  return value;
}

// IHDR follows the 8-byte signature and the chunk's length and type: width and height at 16..23.
std::optional<cv::Size> png_size(std::ifstream& in) {
  std::array<unsigned char, 24> head{};
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(head.data()), head.size())) return std::nullopt;
  static constexpr unsigned char kSignature[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (!std::equal(std::begin(kSignature), std::end(kSignature), head.begin())) return std::nullopt;
  if (!std::equal(head.begin() + 12, head.begin() + 16, "IHDR")) return std::nullopt;
  return cv::Size(static_cast<int>(big_endian(&head[16], 4)), static_cast<int>(big_endian(&head[20], 4)));
}

// Walks the marker segments to the first start-of-frame, which holds height then width.
std::optional<cv::Size> jpeg_size(std::ifstream& in) {
  in.seekg(0);
  unsigned char soi[2];
  if (!in.read(reinterpret_cast<char*>(soi), 2) || soi[0] != 0xFF || soi[1] != 0xD8) return std::nullopt;
  for (;;) {
    int byte = in.get();
    while (byte == 0xFF) byte = in.get();  // fill bytes before a marker
    if (byte == EOF) return std::nullopt;
    const auto marker = static_cast<unsigned char>(byte);
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) continue;  // no payload
    unsigned char length_bytes[2];
    if (!in.read(reinterpret_cast<char*>(length_bytes), 2)) return std::nullopt;
    const uint32_t length = big_endian(length_bytes, 2);
    if (length < 2) return std::nullopt;
    const bool start_of_frame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (start_of_frame) {
      unsigned char frame[5];
      if (!in.read(reinterpret_cast<char*>(frame), 5)) return std::nullopt;
      return cv::Size(static_cast<int>(big_endian(&frame[3], 2)), static_cast<int>(big_endian(&frame[1], 2)));
    }
    in.seekg(length - 2, std::ios::cur);
  }
}

}  // namespace

cv::Size image_size(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot open image " + path);
  std::optional<cv::Size> size = png_size(in);
  if (!size) {
    in.clear();
    size = jpeg_size(in);
  }
  if (size && size->width > 0 && size->height > 0) return *size;
  return read_image(path, 1).size();
}

bool has_image_extension(const std::filesystem::path& path) {
  const std::string extension = to_lower(path.extension().string());
  return extension == ".png" || extension == ".jpg" || extension == ".jpeg" || extension == ".bmp";
}

}  // namespace trainer
