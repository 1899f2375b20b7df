// The embedded printed-text set: text lines rendered with the machine's fonts (Debian
// fonts-dejavu, fonts-liberation; fonts-wqy-microhei or fonts-noto-cjk for Chinese) with
// varying size, spacing, skew, blur and noise, in EasyOCR's format, one folder per font family
// so select_data / batch_ratio can mix them.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>

#include "data/synth/synth_digits.h"

namespace trainer {

enum class PrintedScript { latin, chinese };

struct SynthPrintedOptions {
  std::filesystem::path out = "data/printed";  ///< gets train/<family>/ and val/<family>/
  PrintedScript script = PrintedScript::latin;   ///< latin: EasyOCR's en characters; chinese: common hanzi and digits
  int64_t train = 20000;    ///< training images over all families
  int64_t val = 1000;       ///< validation images over all families
  int64_t max_length = 24;  ///< characters per line, at most
  uint64_t seed = 0;
  bool force = false;       ///< replace an existing set
};

// Throws UserError when no font of the script is installed (naming the Debian packages), when
// `out` already holds a set and `force` is off, or when this build lacks OpenCV's freetype module.
SynthSetSummary write_synth_printed(const SynthPrintedOptions& options);

}  // namespace trainer
