// Decoding one image file into the layout every dataset hands out.
#pragma once
#include <opencv2/core.hpp>

#include <cstdint>
#include <string>

namespace trainer {

// uint8 with `channels` channels (1 = grey, 3 = RGB). Throws UserError naming the file when it
// is missing or cannot be decoded.
cv::Mat read_image(const std::string& path, int64_t channels);

}  // namespace trainer
