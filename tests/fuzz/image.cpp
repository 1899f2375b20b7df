// Image files as datasets open them: our own PNG and JPEG header reader (size, EXIF orientation),
// the decoding check of a dataset scan, and the decoding itself through OpenCV, grey and colour
// and at libjpeg's reductions. The first byte picks the extension, channels and reduction.
#include "data/read_image.h"
#include "support/fuzz_target.h"

using namespace trainer;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A few bytes may claim up to max_image_pixels, which the decoders then fill for seconds: the
  // limit is lowered so that the fuzzer spends its time on parsing, the limit itself included.
  static const bool limited = (set_max_image_pixels(int64_t(1) << 22), true);
  if (size < 1 || !limited) return 0;
  static const char* const kExtensions[] = {".png", ".jpg", ".bmp", ".jpeg"};
  const std::string path =
      fuzz::scratch_file(std::string("image") + kExtensions[data[0] % 4], fuzz::bytes_of(data + 1, size - 1));
  const int64_t channels = (data[0] >> 2) % 2 == 0 ? 1 : 3;
  const int reduction = 1 << ((data[0] >> 3) % 4);
  fuzz::read_or_refuse([&] { read_image_header(path); });
  check_image(path);
  fuzz::read_or_refuse([&] { image_size(path); });
  fuzz::read_or_refuse([&] { read_image(path, channels, reduction); });
  return 0;
}
