#include "data/read_image.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <c10/util/Exception.h>

#include <array>
#include <atomic>
#include <climits>
#include <cmath>
#include <fstream>

#include "config/setting_types.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {

namespace {

int imread_flags(int64_t channels, int reduction) {
  const bool grey = channels == 1;
  switch (reduction) {
    case 1: return grey ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR;
    case 2: return grey ? cv::IMREAD_REDUCED_GRAYSCALE_2 : cv::IMREAD_REDUCED_COLOR_2;
    case 4: return grey ? cv::IMREAD_REDUCED_GRAYSCALE_4 : cv::IMREAD_REDUCED_COLOR_4;
    case 8: return grey ? cv::IMREAD_REDUCED_GRAYSCALE_8 : cv::IMREAD_REDUCED_COLOR_8;
  }
  TORCH_INTERNAL_ASSERT(false, "image reduction ", reduction, " is not 1, 2, 4 or 8");
}

std::atomic<int64_t> max_pixels{kPilMaxImagePixels};

bool oversized(cv::Size size) { return int64_t(size.width) * size.height > max_pixels.load(); }

// Before the decoder allocates what the header claims.
void refuse_oversized(const std::string& path, const std::optional<ImageHeader>& header) {
  if (header && oversized(header->size)) {
    throw UserError("image " + path + " claims " + std::to_string(header->size.width) + "x" +
                    std::to_string(header->size.height) + " pixels, more than max_image_pixels=" +
                    std::to_string(max_pixels.load()) + " (a decompression bomb, or raise the key)");
  }
}

}  // namespace

void set_max_image_pixels(int64_t pixels) { max_pixels = pixels; }

int64_t max_image_pixels() { return max_pixels.load(); }

cv::Mat read_image(const std::string& path, int64_t channels, int reduction) {
  refuse_oversized(path, read_image_header(path));
  cv::Mat image;
  try {
    image = cv::imread(path, imread_flags(channels, reduction));
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

uint32_t little_endian(const unsigned char* bytes, int count) {
  uint32_t value = 0;
  for (int i = count - 1; i >= 0; --i) value = (value << 8) | bytes[i];
  return value;
}

// The 14-byte file header, then the info header: its size, then width and height (int32, or int16
// in OS/2's 12-byte core header); a negative height means rows stored top-down.
std::optional<cv::Size> bmp_size(std::ifstream& in) {
  std::array<unsigned char, 26> head{};
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(head.data()), head.size()) || head[0] != 'B' || head[1] != 'M') {
    return std::nullopt;
  }
  if (little_endian(&head[14], 4) == 12) {
    return cv::Size(static_cast<int>(little_endian(&head[18], 2)), static_cast<int>(little_endian(&head[20], 2)));
  }
  const auto width = static_cast<int32_t>(little_endian(&head[18], 4));
  const auto height = static_cast<int32_t>(little_endian(&head[22], 4));
  if (height == INT32_MIN) return std::nullopt;
  return cv::Size(width, height < 0 ? -height : height);
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

}  // namespace

int exif_orientation(const std::string& exif) {
  if (exif.size() < 14 || exif.compare(0, 6, std::string("Exif\0\0", 6)) != 0) return 1;
  const auto* tiff = reinterpret_cast<const unsigned char*>(exif.data()) + 6;
  const size_t size = exif.size() - 6;
  const bool little = tiff[0] == 'I' && tiff[1] == 'I';
  if (!little && !(tiff[0] == 'M' && tiff[1] == 'M')) return 1;
  const auto number = [&](size_t at, int count) -> uint32_t {
    if (at + size_t(count) > size) return 0;
    uint32_t value = 0;
    for (int i = 0; i < count; ++i) value |= uint32_t(tiff[at + (little ? i : count - 1 - i)]) << (8 * i);
    return value;
  };
  const size_t directory = number(4, 4);
  const uint32_t entries = number(directory, 2);
  for (uint32_t e = 0; e < entries; ++e) {
    const size_t entry = directory + 2 + 12 * size_t(e);
    if (entry + 12 > size) return 1;
    if (number(entry, 2) == 0x0112) {
      const uint32_t orientation = number(entry + 8, 2);
      return orientation >= 1 && orientation <= 8 ? int(orientation) : 1;
    }
  }
  return 1;
}

namespace {

// EXIF orientations 5-8 turn the picture by a quarter, so the decoded image is the stored one
// transposed.
bool turned_by_exif(const std::string& exif) { return exif_orientation(exif) >= 5; }

// Walks the marker segments to the first start-of-frame, which holds height then width, noting
// the EXIF orientation on the way (APP1 comes before the frame).
std::optional<cv::Size> jpeg_size(std::ifstream& in) {
  in.seekg(0);
  unsigned char soi[2];
  if (!in.read(reinterpret_cast<char*>(soi), 2) || soi[0] != 0xFF || soi[1] != 0xD8) return std::nullopt;
  bool turned = false;
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
      const cv::Size stored(static_cast<int>(big_endian(&frame[3], 2)), static_cast<int>(big_endian(&frame[1], 2)));
      return turned ? cv::Size(stored.height, stored.width) : stored;
    }
    if (marker == 0xE1) {
      std::string payload(length - 2, '\0');
      if (!in.read(payload.data(), std::streamsize(payload.size()))) return std::nullopt;
      turned = turned || turned_by_exif(payload);
    } else {
      in.seekg(length - 2, std::ios::cur);
    }
  }
}

}  // namespace

std::optional<ImageHeader> read_image_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot open image " + path);
  ImageHeader header;
  std::optional<cv::Size> size = png_size(in);
  if (!size) {
    in.clear();
    size = jpeg_size(in);
    header.jpeg = size.has_value();
  }
  if (!size) {
    in.clear();
    size = bmp_size(in);
  }
  if (!size || size->width <= 0 || size->height <= 0) return std::nullopt;
  header.size = *size;
  return header;
}

int reduction_keeping(int length, int64_t needed, int max_reduction) {
  int reduction = 1;
  while (reduction * 2 <= max_reduction && int64_t(length) >= int64_t(reduction) * 2 * needed) reduction *= 2;
  return reduction;
}

cv::Rect reduced_region(const cv::Rect& region, cv::Size full, cv::Size reduced) {
  const double sx = double(reduced.width) / full.width, sy = double(reduced.height) / full.height;
  const int x0 = int(std::lround(region.x * sx)), y0 = int(std::lround(region.y * sy));
  const int x1 = int(std::lround(region.br().x * sx)), y1 = int(std::lround(region.br().y * sy));
  return cv::Rect(x0, y0, x1 - x0, y1 - y0) & cv::Rect(0, 0, reduced.width, reduced.height);
}

CheckedImage check_image(const std::string& path) {
  CheckedImage checked;
  try {
    const std::optional<ImageHeader> header = read_image_header(path);
    if (header && oversized(header->size)) return checked;
    cv::Mat image;
    if (header && header->jpeg) {
      image = cv::imread(path, cv::IMREAD_REDUCED_GRAYSCALE_8 | cv::IMREAD_ANYCOLOR);
      if (!image.empty() && image.size() == cv::Size((header->size.width + 7) / 8, (header->size.height + 7) / 8)) {
        return {header->size, image.channels(), true};
      }
    }
    image = cv::imread(path, cv::IMREAD_ANYCOLOR);
    if (!image.empty()) checked = {image.size(), image.channels(), false};
  } catch (const std::exception&) {  // cv::Exception from a decoder, UserError from the header
  }
  return checked;
}

cv::Size image_size(const std::string& path) {
  const std::optional<ImageHeader> header = read_image_header(path);
  refuse_oversized(path, header);
  if (header) return header->size;
  return read_image(path, 1).size();
}

bool has_image_extension(const std::filesystem::path& path) {
  const std::string extension = to_lower(path.extension().string());
  return extension == ".png" || extension == ".jpg" || extension == ".jpeg" || extension == ".bmp";
}

}  // namespace trainer
