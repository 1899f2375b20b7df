// A chart written as a PNG file in one step, so a viewer or a crash never sees half of it.
#pragma once
#include <filesystem>

#include <opencv2/core/mat.hpp>

namespace trainer {

// Encodes a BGR image as PNG and replaces `path` with it; failures are UserErrors naming the file.
void write_png_atomically(const cv::Mat& image, const std::filesystem::path& path);

}  // namespace trainer
