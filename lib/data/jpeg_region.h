// Decoding part of a JPEG: libjpeg-turbo's scaled IDCT, jpeg_skip_scanlines and
// jpeg_crop_scanline, so the rows below the region are never read, and rows above it and columns
// beside it are entropy-decoded only (no IDCT, upsampling or colour conversion). A random resized
// crop of an ImageNet-sized photograph costs about half of a whole decode this way.
#pragma once
#include <opencv2/core.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace trainer {

// The pixels read_image(path, channels, reduction) gives in `region` (in the whole image's
// pixels), to half a reduced pixel at each edge (reduced_region): uint8, `channels` channels
// (RGB when 3). nullopt for a JPEG that read_image turns or converts differently (an EXIF
// orientation other than 1, CMYK or YCCK): decode those with read_image. Throws UserError naming
// the file when it is missing, over max_image_pixels or corrupt.
std::optional<cv::Mat> read_jpeg_region(const std::string& path, int64_t channels, const cv::Rect& region,
                                        int reduction);

// The same for a JPEG held in memory (the disk cache's copies), `name` naming it in errors.
std::optional<cv::Mat> read_jpeg_region(const uint8_t* bytes, size_t size, const std::string& name, int64_t channels,
                                        const cv::Rect& region, int reduction);

}  // namespace trainer
