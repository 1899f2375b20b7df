// The embedded handwriting set: digit strings composed from the 5,000 real handwritten digits of
// OpenCV's digits.png (Debian opencv-doc), written in EasyOCR's format for task=ocr.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>

namespace trainer {

struct SynthDigitsOptions {
  std::filesystem::path out = "data/digits";  ///< gets train/ and val/, each with labels.csv and glyphs.csv
  std::string source = "/usr/share/doc/opencv-doc/examples/data/digits.png";
  int64_t train = 100000;  ///< training images (configs/crnn-digits.yaml reads 75 % of them twice)
  int64_t val = 2000;      ///< validation images
  int64_t min_length = 3;  ///< digits per string, at least
  int64_t max_length = 6;  ///< digits per string, at most
  int64_t height = 32;     ///< image height in pixels
  uint64_t seed = 0;
  bool force = false;      ///< replace an existing set
};

struct SynthSetSummary {
  std::filesystem::path root;
  int64_t train = 0;
  int64_t val = 0;
};

// digits.png holds 500 glyphs per digit; every tenth glyph of each digit is kept for validation,
// so no glyph appears in both splits. Each string places randomly scaled, rotated and sheared
// glyphs with random gaps as dark ink on light paper, then adds blur and noise; glyphs.csv names
// each string's source cells in digits.png (row * 100 + column), left to right. The output is a
// pure function of the options. Throws UserError when the source is missing (naming the Debian
// package) or `out` already holds a set and `force` is off.
SynthSetSummary write_synth_digits(const SynthDigitsOptions& options);

}  // namespace trainer
