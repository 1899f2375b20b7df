// EasyOCR's label files: a folder of images with `labels.csv`, a `filename,words` header, then one
// `filename,words` line per image, split on the first comma only (the words may hold commas).
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace trainer {

struct OcrLabelLine {
  std::string filename;  ///< relative to the folder of labels.csv
  std::u32string words;  ///< verbatim after the first comma (no CSV unquoting, as EasyOCR)
  int64_t line = 0;      ///< 1-based line number in labels.csv
};

// Blank lines are skipped; a missing header, a line without a comma, an empty filename or
// malformed UTF-8 throws UserError naming `csv:line`.
std::vector<OcrLabelLine> read_ocr_labels(const std::filesystem::path& csv);

// The folders under `root` (root itself included) that hold a labels.csv, as paths relative to
// root ("." for root), sorted. Hidden folders are skipped.
std::vector<std::string> ocr_label_folders(const std::filesystem::path& root);

}  // namespace trainer
