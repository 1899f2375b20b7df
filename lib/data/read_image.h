// Decoding one image file into the layout every dataset hands out.
#pragma once
#include <opencv2/core.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace trainer {

// The most pixels (width x height) an image may claim to be decoded, for the whole process: the
// recipe's max_image_pixels, which make_task sets before any dataset opens (its default until
// then). A file whose PNG, JPEG or BMP header claims more is refused before any memory is taken
// for its pixels (a decompression bomb); other formats keep OpenCV's own limit (2^30 pixels).
void set_max_image_pixels(int64_t pixels);
int64_t max_image_pixels();

// uint8 with `channels` channels (1 = grey, 3 = RGB). A JPEG is turned upright by its EXIF
// orientation. `reduction` (1, 2, 4 or 8) decodes a JPEG at that fraction of each side, rounded
// up, in libjpeg's DCT (a fraction of the work of decoding it whole); pass it for JPEG files only
// (ImageHeader::jpeg), since OpenCV shrinks other formats after decoding without averaging.
// Throws UserError naming the file when it is missing, larger than max_image_pixels or cannot be
// decoded.
cv::Mat read_image(const std::string& path, int64_t channels, int reduction = 1);

// The largest reduction (a power of two up to max_reduction) that leaves `length` pixels at least
// `needed`: decoding at it and then shrinking to `needed` loses nothing a shrink from full size
// would keep.
int reduction_keeping(int length, int64_t needed, int max_reduction);

// `region` of an image of size `full`, in the pixels of the same image decoded at `reduced` (a
// JPEG's DCT scaling rounds sides up): edges round to the nearest reduced pixel, so they move by
// at most half of one, and the result is clipped to the reduced image (a file that changed size
// since it was scanned).
cv::Rect reduced_region(const cv::Rect& region, cv::Size full, cv::Size reduced);

// The orientation tag (1-8) of a JPEG's EXIF APP1 payload; 1 when it has none or does not parse.
int exif_orientation(const std::string& exif);

struct ImageHeader {
  cv::Size size;      ///< as read_image returns it: after a JPEG's EXIF orientation
  bool jpeg = false;  ///< read_image may reduce it
};

// What a PNG, JPEG or BMP header says, without decoding the pixels; nullopt for other formats
// and headers that do not parse. Throws UserError naming the file when it cannot be opened.
std::optional<ImageHeader> read_image_header(const std::string& path);

struct CheckedImage {
  cv::Size size;      ///< as read_image returns it
  int channels = 0;   ///< 1 (grey) or 3 as stored; 0 when the file cannot be decoded
  bool jpeg = false;  ///< read_image may reduce it
};

// Decodes the file to see that it can be: a JPEG at an eighth of each side (libjpeg still decodes
// every coefficient, so a corrupt file fails as it would whole, for a fraction of the time) with
// its size from the header; other files, and a JPEG whose reduced decode disagrees with its
// header, whole. Never throws: an unreadable file, or one over max_image_pixels, gives channels 0
// (so what a scan cache keeps depends on that limit: its header holds it).
CheckedImage check_image(const std::string& path);

// Width and height as read_image returns them: from the header where read_image_header reads
// one, else by decoding. Throws UserError naming the file when it is missing, unreadable or over
// max_image_pixels.
cv::Size image_size(const std::string& path);

// Whether the file name ends in an extension datasets read as an image (.png, .jpg, .jpeg, .bmp,
// in any case).
bool has_image_extension(const std::filesystem::path& path);

}  // namespace trainer
