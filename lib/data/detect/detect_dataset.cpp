#include "data/detect/detect_dataset.h"

#include <c10/util/Exception.h>

#include <filesystem>

#include "data/detect/label_cache.h"
#include "data/read_image.h"
#include "util/error.h"
#include "util/parallel.h"

namespace trainer {
namespace {

// Bad label lines beyond this many are summarised rather than each logged.
constexpr size_t kProblemsLogged = 20;

// Beside the labels, like Ultralytics' labels/train.cache, under a name of its own: each tool
// would take the other's file for a corrupt one and rewrite it.
std::string cache_path_for(const std::string& first_image) {
  return std::filesystem::path(label_path_for(first_image)).parent_path().string() + ".trainer-cache";
}

ScannedImage scan(const LabelCacheKey& key, int64_t classes) {
  ScannedImage record;
  record.key = key;
  record.image = check_image(key.image);
  record.labels = parse_label_file(label_path_for(key.image), classes);
  return record;
}

std::vector<ScannedImage> scan_all(const std::vector<std::string>& images, const DetectDataOptions& options,
                                   DetectScanSummary& summary) {
  std::vector<LabelCacheKey> keys(images.size());
  parallel_for_each_index(images.size(), [&](size_t i) {
    keys[i] = {images[i], stamp_of(images[i]), stamp_of(label_path_for(images[i]))};
  });
  if (options.cache) {
    summary.cache = cache_path_for(images.front());
    if (auto cached = read_label_cache(summary.cache, keys, options.classes)) {
      summary.from_cache = true;
      return std::move(*cached);
    }
  }
  std::vector<ScannedImage> records(images.size());
  parallel_for_each_index(images.size(), [&](size_t i) { records[i] = scan(keys[i], options.classes); });
  if (options.cache) {
    try {
      write_label_cache(summary.cache, records, options.classes);
    } catch (const std::exception& error) {
      spdlog::warn("cannot write the label cache {} ({}); the next run scans again", summary.cache, error.what());
    }
  }
  return records;
}

void report_problems(const std::vector<std::string>& problems, bool strict) {
  if (problems.empty()) return;
  if (strict) {
    std::string message = std::to_string(problems.size()) + " bad label line(s):";
    for (size_t i = 0; i < std::min(problems.size(), size_t{5}); ++i) message += "\n  " + problems[i];
    if (problems.size() > 5) message += "\n  ...";
    throw UserError(message);
  }
  for (size_t i = 0; i < std::min(problems.size(), kProblemsLogged); ++i) {
    spdlog::warn("skipping label line {}", problems[i]);
  }
  if (problems.size() > kProblemsLogged) {
    spdlog::warn("skipped {} more bad label lines", problems.size() - kProblemsLogged);
  }
}

}  // namespace

DetectDataset::DetectDataset(const std::vector<std::string>& images, const DetectDataOptions& options) {
  TORCH_INTERNAL_ASSERT(options.classes >= 1, "DetectDataOptions.classes must be >= 1");
  if (images.empty()) throw UserError("a detection split needs at least one image");
  std::vector<std::string> problems;
  for (ScannedImage& record : scan_all(images, options, summary_)) {
    if (record.image.channels == 0) {
      spdlog::warn("skipping unreadable image {}", record.key.image);
      ++summary_.unreadable;
      continue;
    }
    ParsedLabels& labels = record.labels;
    problems.insert(problems.end(), labels.problems.begin(), labels.problems.end());
    summary_.bad_lines += int64_t(labels.problems.size());
    summary_.duplicates += labels.duplicates;
    summary_.missing_labels += labels.found ? 0 : 1;
    summary_.backgrounds += labels.boxes.empty() ? 1 : 0;
    summary_.objects += int64_t(labels.boxes.size());
    // After the labels (and the cache) were checked against the file's classes, as Ultralytics does.
    if (options.single_class) {
      for (YoloBox& box : labels.boxes) box.cls = 0;
    }
    samples_.push_back({record.key.image, record.image.size, record.image.jpeg, std::move(labels.boxes)});
  }
  report_problems(problems, options.strict);
  summary_.images = int64_t(samples_.size());

  const int64_t total = summary_.images + summary_.unreadable;
  if (samples_.empty()) throw UserError("none of the " + std::to_string(total) + " images can be read");
  const double bad_fraction = double(summary_.unreadable) / double(total);
  if (bad_fraction > options.max_bad_fraction) {
    throw UserError(std::to_string(summary_.unreadable) + " of " + std::to_string(total) + " images are unreadable (" +
                    std::to_string(bad_fraction * 100) +
                    "%), more than max_bad_fraction=" + std::to_string(options.max_bad_fraction) + " allows");
  }
  spdlog::info("{}: {} images ({} without objects, {} unreadable), {} objects, {} bad label lines skipped{}",
               summary_.cache.empty() ? images.front() : summary_.cache, summary_.images, summary_.backgrounds,
               summary_.unreadable, summary_.objects, summary_.bad_lines, summary_.from_cache ? " (cached)" : "");
}

cv::Mat DetectDataset::image(size_t i, int reduction) const {
  return stand_ins_.read(i, samples_.size(), [&](size_t k) {
    if (cache_ && cache_->encoding(k) != PixelEncoding::missing) return cache_->image(k);
    const Sample& sample = samples_.at(k);
    return read_image(sample.path, 3, sample.jpeg ? reduction : 1);  // a stand-in may be no JPEG
  });
}

void DetectDataset::use_pixel_cache(std::shared_ptr<const PixelCacheFile> cache) {
  TORCH_INTERNAL_ASSERT(cache && cache->size() == samples_.size(), "a pixel cache of another split");
  cache_ = std::move(cache);
}

}  // namespace trainer
