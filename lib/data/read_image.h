// Decoding one image file into the layout every dataset hands out.
#pragma once
#include <opencv2/core.hpp>

#include <cstdint>
#include <string>

namespace trainer {

// uint8 with `channels` channels (1 = grey, 3 = RGB). Throws UserError naming the file when it
// is missing or cannot be decoded.
cv::Mat read_image(const std::string& path, int64_t channels);

// Width and height as stored in the file, read from the PNG or JPEG header without decoding the
// pixels (other formats are decoded). Throws UserError naming the file when it is missing or
// unreadable. EXIF orientation is not applied, so a rotated JPEG reports its stored size.
cv::Size image_size(const std::string& path);

}  // namespace trainer
