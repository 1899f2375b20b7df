#include "data/jpeg_region.h"

// jpeglib.h needs size_t and FILE declared before it.
#include <cstdio>
#include <jpeglib.h>

#include <algorithm>
#include <csetjmp>
#include <memory>

#include "data/read_image.h"
#include "util/error.h"

namespace trainer {
namespace {

// libjpeg reports a fatal error by calling error_exit, which must not return: it jumps back to
// the guarded call below instead (C++ exceptions cannot unwind through libjpeg's C frames).
struct ErrorJump {
  jpeg_error_mgr manager;  // first: libjpeg casts the struct to it
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX] = {};
};

[[noreturn]] void jump_on_error(j_common_ptr info) {
  auto* error = reinterpret_cast<ErrorJump*>(info->err);
  (*info->err->format_message)(info, error->message);
  std::longjmp(error->jump, 1);
}

// Warnings (a truncated file, extraneous bytes) decode on, as OpenCV's imread does; not printed.
void ignore_message(j_common_ptr) {}

struct Decompressor {
  ErrorJump error;
  jpeg_decompress_struct info;
  Decompressor() {
    info.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = jump_on_error;
    error.manager.output_message = ignore_message;
    jpeg_create_decompress(&info);
  }
  ~Decompressor() { jpeg_destroy_decompress(&info); }
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;
};

// Runs `step`, false when libjpeg failed in it. `step` must own nothing with a destructor: the
// jump skips its frame.
template <typename Step>
bool guarded(Decompressor& jpeg, const Step& step) {
  if (setjmp(jpeg.error.jump)) return false;
  step();
  return true;
}

int stored_orientation(const jpeg_decompress_struct& info) {
  for (jpeg_saved_marker_ptr marker = info.marker_list; marker; marker = marker->next) {
    if (marker->marker == JPEG_APP0 + 1) {
      return exif_orientation(std::string(reinterpret_cast<const char*>(marker->data), marker->data_length));
    }
  }
  return 1;
}

// The region's rows of a decompressor whose source is attached and header read (the rest of
// read_jpeg_region); `name` names the image in errors.
std::optional<cv::Mat> decode_region(Decompressor& jpeg, const std::string& name, int64_t channels,
                                     const cv::Rect& region, int reduction) {
  jpeg_decompress_struct& info = jpeg.info;
  const auto fail = [&] { return UserError("cannot read image " + name + ": " + jpeg.error.message); };
  if ((info.num_components != 1 && info.num_components != 3) || stored_orientation(info) != 1) return std::nullopt;
  if (int64_t(info.image_width) * info.image_height > max_image_pixels()) {
    throw UserError("image " + name + " claims " + std::to_string(info.image_width) + "x" +
                    std::to_string(info.image_height) + " pixels, more than max_image_pixels=" +
                    std::to_string(max_image_pixels()) + " (a decompression bomb, or raise the key)");
  }
  info.out_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_EXT_RGB;
  info.scale_num = 1;
  info.scale_denom = unsigned(reduction);
  if (!guarded(jpeg, [&] { jpeg_start_decompress(&info); })) throw fail();
  const cv::Rect wanted = reduced_region(region, cv::Size(int(info.image_width), int(info.image_height)),
                                         cv::Size(int(info.output_width), int(info.output_height)));
  if (wanted.empty()) return std::nullopt;
  // The decoder moves the left edge to a whole iMCU, and its chroma upsampling repeats the last
  // column it decodes where the whole image would blend in the next chroma sample: a few columns
  // more on the right keep the region's last one exact. `left` and `width` come back widened.
  JDIMENSION left = JDIMENSION(wanted.x);
  JDIMENSION width = std::min(JDIMENSION(wanted.br().x + 2 * info.max_h_samp_factor), info.output_width) - left;
  if (!guarded(jpeg, [&] { jpeg_crop_scanline(&info, &left, &width); })) throw fail();
  cv::Mat rows(wanted.height, int(width), channels == 1 ? CV_8UC1 : CV_8UC3);
  const JDIMENSION end = JDIMENSION(wanted.br().y);
  if (!guarded(jpeg, [&] {
        if (wanted.y > 0) jpeg_skip_scanlines(&info, JDIMENSION(wanted.y));
        while (info.output_scanline < end) {
          JSAMPROW row = rows.ptr<uint8_t>(int(info.output_scanline) - wanted.y);
          jpeg_read_scanlines(&info, &row, 1);
        }
      })) {
    throw fail();
  }
  // The rows below the region stay unread: jpeg_destroy_decompress aborts the decode.
  return rows(cv::Rect(wanted.x - int(left), 0, wanted.width, wanted.height));
}

// Attaches a source with `attach` (a function of the decompress struct), reads the header, then
// decodes the region.
template <typename Attach>
std::optional<cv::Mat> read_region_from(const Attach& attach, const std::string& name, int64_t channels,
                                        const cv::Rect& region, int reduction) {
  Decompressor jpeg;
  if (!guarded(jpeg, [&] {
        attach(jpeg.info);
        jpeg_save_markers(&jpeg.info, JPEG_APP0 + 1, 0xFFFF);
        jpeg_read_header(&jpeg.info, TRUE);
      })) {
    throw UserError("cannot read image " + name + ": " + jpeg.error.message);
  }
  return decode_region(jpeg, name, channels, region, reduction);
}

}  // namespace

std::optional<cv::Mat> read_jpeg_region(const std::string& path, int64_t channels, const cv::Rect& region,
                                        int reduction) {
  const std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file) throw UserError("cannot open image " + path);
  return read_region_from([&](jpeg_decompress_struct& info) { jpeg_stdio_src(&info, file.get()); }, path, channels,
                          region, reduction);
}

std::optional<cv::Mat> read_jpeg_region(const uint8_t* bytes, size_t size, const std::string& name, int64_t channels,
                                        const cv::Rect& region, int reduction) {
  return read_region_from(
      [&](jpeg_decompress_struct& info) { jpeg_mem_src(&info, bytes, static_cast<unsigned long>(size)); }, name,
      channels, region, reduction);
}

}  // namespace trainer
