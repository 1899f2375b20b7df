// Decoding one image file into the layout every dataset hands out.
#pragma once
#include <opencv2/core.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

namespace trainer {

// uint8 with `channels` channels (1 = grey, 3 = RGB). Throws UserError naming the file when it
// is missing or cannot be decoded.
cv::Mat read_image(const std::string& path, int64_t channels);

// Width and height as stored in the file, read from the PNG or JPEG header without decoding the
// pixels (other formats are decoded). Throws UserError naming the file when it is missing or
// unreadable. EXIF orientation is not applied, so a rotated JPEG reports its stored size.
cv::Size image_size(const std::string& path);

// Whether the file name ends in an extension datasets read as an image (.png, .jpg, .jpeg, .bmp,
// in any case).
bool has_image_extension(const std::filesystem::path& path);

}  // namespace trainer
