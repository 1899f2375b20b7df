#include "config/foreign_keys.h"

namespace trainer {

const std::vector<ForeignSpelling>& keys_without_counterpart() {
  constexpr ForeignTool kUltralytics = ForeignTool::ultralytics;
  constexpr ForeignMeaning kDifferent = ForeignMeaning::different;
  static const std::vector<ForeignSpelling> spellings = {
      {"weights", kUltralytics, kDifferent,
       "train starts from a file with pretrained=PATH (or model=yolov8n.pt); val and predict take --weights PATH or "
       "model=PATH, export --weights PATH"},
      {"source", kUltralytics, kDifferent, "source= names predict's images; other commands take none"},
      {"half", kUltralytics, kDifferent, "export writes half-precision weights with --half; training uses amp=fp16"},
      {"verbose", kUltralytics, kDifferent, "output is verbose unless -q/--quiet is given"},
      {"save", kUltralytics, kDifferent,
       "last.pt and best.pt are always saved; save_period and save_interval add more"},
      {"rect", kUltralytics, kDifferent,
       "Ultralytics' rectangular batches are not offered: every image is letterboxed to imgsz, so input shapes stay "
       "fixed for CUDA graphs"},
      // Near our keys by spelling (mode/model, optimize/optimizer): said here so that no did-you-mean
      // offers a key of another meaning.
      {"mode", kUltralytics, kDifferent,
       "the mode is the command word: trainer train, val, predict, export (trainer help lists them)"},
      {"optimize", kUltralytics, kDifferent,
       "Ultralytics' export optimize (TorchScript for mobile) is not offered; export writes weights files"},
  };
  return spellings;
}

}  // namespace trainer
