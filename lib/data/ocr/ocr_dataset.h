// A recognition split in EasyOCR's layout: one or more folders under a root, each with images and
// a labels.csv. Labels are filtered as EasyOCR filters them, and every image's size is read once
// up front so batches can be bucketed by width before any pixel is decoded.
#pragma once
#include <opencv2/core.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "data/ocr/charset.h"
#include "data/stand_in_images.h"

namespace trainer {

struct OcrDataOptions {
  int64_t img_h = 64;                     ///< height images are resized to
  int64_t img_w = 600;                    ///< widest resized image; wider ones are squeezed to it
  int64_t channels = 1;                   ///< 1 grey, 3 RGB
  int64_t batch_max_length = 34;          ///< longest label kept, in characters
  bool sensitive = false;                 ///< false: labels are lower-cased
  bool data_filtering_off = false;        ///< keep every line: unknown characters removed, long labels cut
  double contrast_adjust = 0.0;           ///< EasyOCR's contrast stretch target (data/ocr/contrast_stretch.h); 0 = off
  std::vector<std::string> select_data;   ///< folder names to use (a folder and its subfolders); empty or "/" = all
  double max_dropped_fraction = 1.0;      ///< share of lines that may be dropped for unknown characters
};

// What filtering did to one split, for the start-up report.
struct OcrFilterCounts {
  int64_t lines = 0;         ///< label lines read
  int64_t too_long = 0;      ///< dropped (filtering on) or truncated (filtering off)
  int64_t unknown = 0;       ///< with characters outside the set: dropped, or cleaned when filtering is off
  int64_t affected = 0;      ///< lines either of the above applies to
  std::vector<std::string>
      unknown_examples;  ///< the first two lines dropped for unknown characters: "csv:line 'words'"
};

// Labels as the recognizer sees them: lower-cased unless `sensitive`, as EasyOCR.
std::u32string normalize_label(const std::u32string& words, bool sensitive);

// Every distinct character of the normalised labels under `root` (select_data applies), sorted by
// code point: the character set `charset: labels` trains with.
std::u32string label_characters(const std::filesystem::path& root, const OcrDataOptions& options);

// EasyOCR's resized width at height img_h (ceil(img_h * w / h)), capped at img_w.
int64_t resized_width(cv::Size size, int64_t img_h, int64_t img_w);

class OcrDataset {
 public:
  // Throws UserError naming labels.csv and the line of a missing or unreadable image, when a
  // select_data name matches no folder or no sample is left, and when more than
  // max_dropped_fraction of the lines are dropped for characters outside the set (fewer warn).
  OcrDataset(const std::filesystem::path& root, const Charset& charset, OcrDataOptions options);

  size_t size() const { return samples_.size(); }
  const std::string& path(size_t i) const { return samples_.at(i).path; }
  // The stand-in's once sample i's file failed to read (stand_in_images.h).
  const std::u32string& label(size_t i) const { return samples_.at(stand_ins_.resolve(i)).label; }
  // The image's resized width at img_h, at most img_w.
  int64_t width(size_t i) const { return samples_.at(i).width; }
  // The select_data entry (or, without select_data, the folder) the sample comes from.
  int64_t group(size_t i) const { return samples_.at(i).group; }
  const std::vector<std::string>& group_names() const { return group_names_; }
  const OcrFilterCounts& filter_counts() const { return counts_; }
  const OcrDataOptions& options() const { return options_; }
  // uint8 with options().channels channels at the file's own size; another sample's, with its
  // label, once the file fails to read after the scan (stand_in_images.h).
  cv::Mat image(size_t i) const;

 private:
  void check_dropped_for_characters(const std::filesystem::path& root) const;

  struct Sample {
    std::string path;
    std::u32string label;
    int64_t width = 0;
    int64_t group = 0;
  };
  OcrDataOptions options_;
  std::vector<Sample> samples_;
  std::vector<std::string> group_names_;
  OcrFilterCounts counts_;
  StandInImages stand_ins_;
};

}  // namespace trainer
