// A picture written in one step, so a viewer or a crash never sees half of it.
#pragma once
#include <filesystem>

#include <opencv2/core/mat.hpp>

namespace trainer {

// Encodes a BGR image in the format of `path`'s extension (.png, .jpg) and replaces `path` with
// it; failures are UserErrors naming the file.
void write_image_atomically(const cv::Mat& image, const std::filesystem::path& path);

}  // namespace trainer
