#include "data/synth/synth_digits.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <array>
#include <cmath>

#include "data/rng.h"
#include "data/synth/synth_output.h"
#include "data/synth/synth_paper.h"
#include "util/error.h"
#include "util/parallel.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

// digits.png: 100 columns x 50 rows of 20x20 cells, five rows per digit (0 at the top).
constexpr int kCell = 20;
constexpr int kColumns = 100;
constexpr int kRowsPerDigit = 5;
constexpr int kGlyphsPerDigit = kColumns * kRowsPerDigit;
constexpr int kValidationEvery = 10;

// A glyph's ink and its cell in digits.png (row * 100 + column), so errors trace back to the sheet.
struct Glyph {
  cv::Mat ink;
  int cell = 0;
};

using GlyphPool = std::array<std::vector<Glyph>, 10>;

// The ink's bounding box, so glyphs of different sizes line up on the same baseline.
cv::Mat tight(const cv::Mat& ink) {
  cv::Mat mask;
  cv::threshold(ink, mask, 0.1, 1.0, cv::THRESH_BINARY);
  mask.convertTo(mask, CV_8U);
  const cv::Rect box = cv::boundingRect(mask);
  return box.area() > 0 ? ink(box).clone() : ink.clone();
}

GlyphPool load_glyphs(const cv::Mat& sheet, bool validation) {
  GlyphPool pool;
  for (int digit = 0; digit < 10; ++digit) {
    for (int k = 0; k < kGlyphsPerDigit; ++k) {
      if ((k % kValidationEvery == kValidationEvery - 1) != validation) continue;
      const int row = digit * kRowsPerDigit + k / kColumns, column = k % kColumns;
      cv::Mat ink;
      sheet(cv::Rect(column * kCell, row * kCell, kCell, kCell)).convertTo(ink, CV_32F, 1.0 / 255.0);
      pool[static_cast<size_t>(digit)].push_back({tight(ink), row * kColumns + column});
    }
  }
  return pool;
}

// A random scale (with aspect jitter), rotation, shear and stroke weight: handwriting varies.
cv::Mat vary(const cv::Mat& glyph, int target_height, SplitMix64& rng) {
  const double scale_y = static_cast<double>(target_height) / glyph.rows;
  const double scale_x = scale_y * rng.uniform(0.85, 1.15);
  const double angle = rng.uniform(-8, 8) * CV_PI / 180.0;
  const double shear = rng.uniform(-0.25, 0.25);
  // Linear part A = R(angle) * Shear(shear) * S(scale_x, scale_y), applied about the glyph centre.
  const double c = std::cos(angle), s = std::sin(angle);
  const cv::Matx22d linear = cv::Matx22d(c, -s, s, c) * cv::Matx22d(1, shear, 0, 1) * cv::Matx22d(scale_x, 0, 0, scale_y);
  std::vector<cv::Point2d> corners{{0, 0}, {static_cast<double>(glyph.cols), 0}, {0, static_cast<double>(glyph.rows)},
                                   {static_cast<double>(glyph.cols), static_cast<double>(glyph.rows)}};
  double min_x = 1e9, min_y = 1e9, max_x = -1e9, max_y = -1e9;
  for (auto& corner : corners) {
    const cv::Vec2d moved = linear * cv::Vec2d(corner.x, corner.y);
    min_x = std::min(min_x, moved[0]), max_x = std::max(max_x, moved[0]);
    min_y = std::min(min_y, moved[1]), max_y = std::max(max_y, moved[1]);
  }
  const cv::Mat affine = (cv::Mat_<double>(2, 3) << linear(0, 0), linear(0, 1), -min_x, linear(1, 0), linear(1, 1), -min_y);
  cv::Mat out;
  cv::warpAffine(glyph, out, affine, cv::Size(static_cast<int>(std::ceil(max_x - min_x)), static_cast<int>(std::ceil(max_y - min_y))),
                 cv::INTER_LINEAR, cv::BORDER_CONSTANT, 0);
  const double stroke = rng.uniform();
  const cv::Mat kernel = cv::Mat::ones(2, 2, CV_8U);
  if (stroke < 0.2) cv::erode(out, out, kernel);
  if (stroke > 0.75) cv::dilate(out, out, kernel);
  return tight(out);
}

// Glyphs left to right with random gaps (slight touching included) and vertical jitter.
cv::Mat compose(const std::vector<cv::Mat>& glyphs, int height, SplitMix64& rng) {
  std::vector<int> gaps;
  int width = static_cast<int>(std::lround(rng.uniform(2, 8)));
  const int left = width;
  for (size_t i = 0; i < glyphs.size(); ++i) {
    gaps.push_back(i + 1 < glyphs.size() ? static_cast<int>(std::lround(rng.uniform(-1.5, 4.5)))
                                         : static_cast<int>(std::lround(rng.uniform(2, 8))));
    width += glyphs[i].cols + gaps.back();
  }
  cv::Mat canvas = cv::Mat::zeros(height, std::max(width, 1), CV_32F);
  int x = left;
  for (size_t i = 0; i < glyphs.size(); ++i) {
    const cv::Mat& glyph = glyphs[i];
    const int w = std::min(glyph.cols, canvas.cols - x), h = std::min(glyph.rows, height);
    const int jitter = static_cast<int>(std::lround(rng.uniform(-2, 2)));
    const int y = std::clamp((height - h) / 2 + jitter, 0, height - h);
    if (w > 0) {
      cv::Mat region = canvas(cv::Rect(x, y, w, h));
      cv::max(region, glyph(cv::Rect(0, 0, w, h)), region);
    }
    x += glyph.cols + gaps[i];
  }
  return canvas;
}

void write_split(const fs::path& folder, const GlyphPool& pool, int64_t count, uint64_t split_id,
                 const SynthDigitsOptions& options) {
  fs::create_directories(folder);
  std::vector<std::string> filenames(static_cast<size_t>(count)), words(static_cast<size_t>(count)),
      cells(static_cast<size_t>(count));
  const int height = static_cast<int>(options.height);
  parallel_for_each_index(static_cast<size_t>(count), [&](size_t i) {
    SplitMix64 rng(derive_seed(options.seed, RngStream::augment, {split_id, i}));
    const int64_t length = options.min_length + static_cast<int64_t>(rng.below(static_cast<uint64_t>(options.max_length - options.min_length + 1)));
    std::vector<cv::Mat> glyphs;
    std::string text, sources;
    for (int64_t k = 0; k < length; ++k) {
      const uint64_t digit = rng.below(10);
      const auto& choices = pool[digit];
      const Glyph& glyph = choices[rng.below(choices.size())];
      const int glyph_height = std::min(height - 2, static_cast<int>(std::lround(height * rng.uniform(0.55, 0.8))));
      glyphs.push_back(vary(glyph.ink, glyph_height, rng));
      text.push_back(static_cast<char>('0' + digit));
      sources += (k > 0 ? " " : "") + std::to_string(glyph.cell);
    }
    const cv::Mat image = ink_on_paper(compose(glyphs, height, rng), rng);
    char name[32];
    std::snprintf(name, sizeof(name), "%06zu.png", i);
    if (!cv::imwrite((folder / name).string(), image)) throw UserError("cannot write " + (folder / name).string());
    filenames[i] = name;
    words[i] = text;
    cells[i] = sources;
  });
  write_ocr_labels(folder, filenames, words);
  write_image_table(folder / "glyphs.csv", "cells", filenames, cells);
}

}  // namespace

SynthSetSummary write_synth_digits(const SynthDigitsOptions& options) {
  if (options.min_length < 1 || options.max_length < options.min_length) {
    throw UserError("digit strings need 1 <= min length <= max length, got " + std::to_string(options.min_length) +
                    " and " + std::to_string(options.max_length));
  }
  if (options.height < 16) throw UserError("digit images need a height of at least 16 px");
  const cv::Mat sheet = cv::imread(options.source, cv::IMREAD_GRAYSCALE);
  if (sheet.empty()) {
    throw UserError("cannot read " + options.source + ": it comes with Debian's opencv-doc package (apt-get install opencv-doc)");
  }
  if (sheet.cols != kColumns * kCell || sheet.rows != 10 * kRowsPerDigit * kCell) {
    throw UserError(options.source + " is " + std::to_string(sheet.cols) + "x" + std::to_string(sheet.rows) +
                    ", not OpenCV's 2000x1000 digits sheet");
  }
  prepare_generated_root(options.out, {"train", "val"}, options.force);
  write_split(options.out / "train" , load_glyphs(sheet, false), options.train, 0, options);
  write_split(options.out / "val", load_glyphs(sheet, true), options.val, 1, options);
  return {options.out, options.train, options.val};
}

}  // namespace trainer
