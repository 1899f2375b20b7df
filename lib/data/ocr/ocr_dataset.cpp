#include "data/ocr/ocr_dataset.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "data/ocr/contrast_stretch.h"
#include "data/ocr/ocr_labels.h"
#include "data/read_image.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/text.h"
#include "util/utf8.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

struct SelectedFolder {
  std::string relative;
  int64_t group = 0;
};

fs::path folder_path(const fs::path& root, const SelectedFolder& folder) {
  return folder.relative == "." ? root : root / folder.relative;
}

bool selects(const std::string& name, const std::string& folder) {
  return folder == name || folder.rfind(name + "/", 0) == 0;
}

// EasyOCR selects a folder when a select_data entry is a substring of its path, which begins with
// the root: an entry naming the root itself (train_data: all_data/en_train, select_data: en_train)
// selects every folder under it, those with labels.csv in the root included.
bool names_root(const fs::path& root, std::string name) {
  while (name.size() > 1 && name.back() == '/') name.pop_back();
  fs::path normal = root.lexically_normal();
  if (normal.filename().empty()) normal = normal.parent_path();
  const std::string path = normal.string();
  return path == name ||
         (path.size() > name.size() && path.compare(path.size() - name.size() - 1, std::string::npos, "/" + name) == 0);
}

// The label folders under root, each tagged with the select_data entry that picked it.
std::vector<SelectedFolder> select_folders(const fs::path& root, const std::vector<std::string>& select_data,
                                           std::vector<std::string>& group_names) {
  const std::vector<std::string> folders = ocr_label_folders(root);
  if (folders.empty()) {
    throw UserError(root.string() + ": no labels.csv found (expected EasyOCR's layout: folders of images, each "
                                    "with a labels.csv of 'filename,words' lines)");
  }
  std::vector<SelectedFolder> selected;
  const bool names_a_folder = select_data.size() == 1 && std::any_of(folders.begin(), folders.end(), [&](const std::string& folder) {
    return selects(select_data.front(), folder);
  });
  if (select_data.size() == 1 && !names_a_folder && names_root(root, select_data.front())) {  // one group of all
    for (const auto& folder : folders) selected.push_back({folder, 0});
    group_names = select_data;
    return selected;
  }
  if (select_data.empty() || select_data == std::vector<std::string>{"/"}) {  // EasyOCR's '/' is every folder
    for (size_t i = 0; i < folders.size(); ++i) selected.push_back({folders[i], static_cast<int64_t>(i)});
    group_names = folders;
    return selected;
  }
  for (size_t j = 0; j < select_data.size(); ++j) {
    bool matched = false;
    for (const auto& folder : folders) {
      if (!selects(select_data[j], folder)) continue;
      matched = true;
      for (const auto& earlier : selected) {
        if (earlier.relative == folder) {
          throw UserError("select_data: folder '" + folder + "' is selected by both '" +
                          select_data[static_cast<size_t>(earlier.group)] + "' and '" + select_data[j] + "'");
        }
      }
      selected.push_back({folder, static_cast<int64_t>(j)});
    }
    if (!matched) {
      throw UserError("select_data: no folder named '" + select_data[j] + "' with a labels.csv under " + root.string() +
                      "; found: " + join(folders, ", "));
    }
  }
  group_names = select_data;
  return selected;
}

bool has_unknown(const std::u32string& label, const Charset& charset) {
  return std::any_of(label.begin(), label.end(), [&](char32_t c) { return !charset.contains(c); });
}

}  // namespace

std::u32string normalize_label(const std::u32string& words, bool sensitive) {
  return sensitive ? words : lower_case(words);
}

std::u32string label_characters(const fs::path& root, const OcrDataOptions& options) {
  std::vector<std::string> group_names;
  std::set<char32_t> characters;
  for (const auto& folder : select_folders(root, options.select_data, group_names)) {
    for (const auto& line : read_ocr_labels(folder_path(root, folder) / "labels.csv")) {
      for (char32_t c : normalize_label(line.words, options.sensitive)) characters.insert(c);
    }
  }
  return std::u32string(characters.begin(), characters.end());
}

int64_t resized_width(cv::Size size, int64_t img_h, int64_t img_w) {
  // EasyOCR's AlignCollate: ratio first, then ceil(imgH * ratio), so the rounding matches.
  const double ratio = static_cast<double>(size.width) / static_cast<double>(size.height);
  return std::clamp<int64_t>(static_cast<int64_t>(std::ceil(static_cast<double>(img_h) * ratio)), 1, img_w);
}

OcrDataset::OcrDataset(const fs::path& root, const Charset& charset, OcrDataOptions options)
    : options_(std::move(options)) {
  std::vector<std::string> where;  // labels.csv:line of each sample, for errors
  for (const auto& folder : select_folders(root, options_.select_data, group_names_)) {
    const fs::path csv = folder_path(root, folder) / "labels.csv";
    for (const auto& line : read_ocr_labels(csv)) {
      ++counts_.lines;
      std::u32string label = normalize_label(line.words, options_.sensitive);
      const bool too_long = static_cast<int64_t>(label.size()) > options_.batch_max_length;
      const bool unknown = has_unknown(label, charset);
      counts_.too_long += too_long;
      counts_.unknown += unknown;
      counts_.affected += too_long || unknown;
      if (unknown && !options_.data_filtering_off && counts_.unknown_examples.size() < 2) {
        counts_.unknown_examples.push_back(csv.string() + ":" + std::to_string(line.line) + " '" +
                                           encode_utf8(line.words) + "'");
      }
      if (!options_.data_filtering_off && (too_long || unknown)) continue;
      label.erase(std::remove_if(label.begin(), label.end(), [&](char32_t c) { return !charset.contains(c); }),
                  label.end());
      if (static_cast<int64_t>(label.size()) > options_.batch_max_length) {
        label.resize(static_cast<size_t>(options_.batch_max_length));
      }
      samples_.push_back({(folder_path(root, folder) / line.filename).string(), std::move(label), 0, folder.group});
      where.push_back(csv.string() + ":" + std::to_string(line.line));
    }
  }
  parallel_for_each_index(samples_.size(), [&](size_t i) {
    try {
      samples_[i].width = resized_width(image_size(samples_[i].path), options_.img_h, options_.img_w);
    } catch (const UserError& error) {
      throw UserError(where[i] + ": " + error.what());
    }
  });
  if (samples_.empty()) {
    throw UserError(root.string() + ": no sample left of " + std::to_string(counts_.lines) + " label lines (" +
                    std::to_string(counts_.too_long) + " longer than batch_max_length=" +
                    std::to_string(options_.batch_max_length) + ", " + std::to_string(counts_.unknown) +
                    " with characters outside the character set)");
  }
  check_dropped_for_characters(root);
  if (counts_.affected > 0) {
    spdlog::info("{}: {} of {} labels {}: {} longer than batch_max_length={}, {} with characters outside the "
                 "character set", root.string(), counts_.affected, counts_.lines,
                 options_.data_filtering_off ? "cut or cleaned (data_filtering_off)" : "dropped", counts_.too_long,
                 options_.batch_max_length, counts_.unknown);
  }
}

void OcrDataset::check_dropped_for_characters(const fs::path& root) const {
  if (options_.data_filtering_off || counts_.unknown == 0) return;
  const std::string text =
      root.string() + ": " + std::to_string(counts_.unknown) + " of " + std::to_string(counts_.lines) +
      " labels dropped for characters outside the character set (e.g. " + join(counts_.unknown_examples, ", ") + ")";
  const double share = static_cast<double>(counts_.unknown) / static_cast<double>(counts_.lines);
  if (share > options_.max_dropped_fraction) {
    throw UserError(text + ", more than max_bad_fraction=" + fmt::format("{:g}", options_.max_dropped_fraction) +
                    "; widen the set (number, symbol, lang_char, or charset=labels, EasyOCR's lang_char: 'None') or "
                    "raise max_bad_fraction");
  }
  spdlog::warn("{}", text);
}

cv::Mat OcrDataset::image(size_t i) const {
  const cv::Mat image =
      stand_ins_.read(i, samples_.size(), [&](size_t k) { return read_image(path(k), options_.channels); });
  return stretch_contrast(image, options_.contrast_adjust);
}

}  // namespace trainer
