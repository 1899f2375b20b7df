#include "data/synth/synth_printed.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#ifdef TRAINER_HAVE_FREETYPE
#include <opencv2/freetype.hpp>
#endif

#include <cmath>
#include <map>
#include <set>

#include "data/rng.h"
#include "data/synth/synth_output.h"
#include "data/synth/synth_paper.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/text.h"
#include "util/utf8.h"

namespace trainer {
// Everything but the entry point renders with FreeType, so builds without it have none of it.
#ifdef TRAINER_HAVE_FREETYPE
namespace {

namespace fs = std::filesystem;

struct FontFamily {
  std::string name;
  std::vector<std::string> files;
};

struct FontPlace {
  std::string family;
  std::string folder;
  std::string name_contains;  ///< only files whose name holds this (e.g. CJK in a shared Noto folder)
};

// Weights too light to read at small sizes, and the maths font, are left out.
bool usable_font(const std::string& filename) {
  return filename.find("ExtraLight") == std::string::npos && filename.find("Math") == std::string::npos;
}

std::vector<FontFamily> installed_fonts(PrintedScript script) {
  const std::vector<FontPlace> places =
      script == PrintedScript::latin
          ? std::vector<FontPlace>{{"dejavu", "/usr/share/fonts/truetype/dejavu", ""},
                                   {"liberation", "/usr/share/fonts/truetype/liberation", ""}}
          : std::vector<FontPlace>{{"wqy", "/usr/share/fonts/truetype/wqy", ""},
                                   {"noto", "/usr/share/fonts/opentype/noto", "CJK"}};
  std::vector<FontFamily> families;
  for (const auto& place : places) {
    FontFamily family{place.family, {}};
    std::error_code error;
    if (!fs::is_directory(place.folder, error)) continue;
    for (const auto& entry : fs::directory_iterator(place.folder)) {
      const std::string name = entry.path().filename().string();
      const std::string extension = to_lower(entry.path().extension().string());
      if ((extension == ".ttf" || extension == ".ttc" || extension == ".otf") && usable_font(name) &&
          name.find(place.name_contains) != std::string::npos) {
        family.files.push_back(entry.path().string());
      }
    }
    std::sort(family.files.begin(), family.files.end());
    if (!family.files.empty()) families.push_back(std::move(family));
  }
  if (families.empty()) {
    throw UserError(script == PrintedScript::latin
                        ? "no Latin fonts found: install Debian's fonts-dejavu-core or fonts-liberation"
                        : "no Chinese fonts found: install Debian's fonts-wqy-microhei or fonts-noto-cjk");
  }
  return families;
}

// Frequent characters of modern Chinese text (repeats are removed when the list is read).
constexpr const char* kCommonHanzi =
    "的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生自会那后能对着事其里所去行过家"
    "十用发天如然作方成者多日都三小军二无同么经法当起与好看学进种将还分此心前面又定见只主没公从知开现两长明问等实点"
    "全体本外高正被理意新把战直做动重部各机关力平手物量气打变向路命美百员最接光程放几山城内队北张名常住利文白期快报"
    "信走海色非门听完电术音受题通提口话结决立角教反交代边合制解感真目南身风克马特老象世系东何西果花件布记拉度五金清"
    "品备达米火深八格万言流先任易且族片水思指青志运今场近联林研确领增复周条据须持容求务群类眼争";

std::u32string common_hanzi() {
  std::u32string unique;
  std::set<char32_t> seen;
  for (char32_t c : decode_utf8(kCommonHanzi, "common hanzi")) {
    if (seen.insert(c).second) unique.push_back(c);
  }
  return unique;
}

char32_t pick(const std::u32string& from, SplitMix64& rng) { return from[rng.below(from.size())]; }

// A pronounceable made-up word: consonant-vowel syllables, sometimes capitalised or upper-case.
std::u32string pseudo_word(SplitMix64& rng) {
  static const std::u32string consonants = U"bcdfghjklmnprstvwxyz", vowels = U"aeiou";
  std::u32string word;
  const uint64_t syllables = 1 + rng.below(4);
  for (uint64_t s = 0; s < syllables; ++s) {
    word.push_back(pick(consonants, rng));
    word.push_back(pick(vowels, rng));
    if (rng.uniform() < 0.3) word.push_back(pick(consonants, rng));
  }
  const double style = rng.uniform();
  if (style < 0.1) {
    for (char32_t& c : word) c = c - U'a' + U'A';
  } else if (style < 0.4) {
    word[0] = word[0] - U'a' + U'A';
  }
  return word;
}

std::u32string digits(SplitMix64& rng, uint64_t count) {
  std::u32string out;
  for (uint64_t i = 0; i < count; ++i) out.push_back(U'0' + static_cast<char32_t>(rng.below(10)));
  return out;
}

// Numbers as they appear in print: amounts, decimals, dates, times, percentages.
std::u32string number_token(SplitMix64& rng) {
  switch (rng.below(6)) {
    case 0: return digits(rng, 1 + rng.below(5));
    case 1: return digits(rng, 1 + rng.below(3)) + U"." + digits(rng, 2);
    case 2: return U"$" + digits(rng, 1 + rng.below(3)) + U"." + digits(rng, 2);
    case 3: return U"20" + digits(rng, 2) + U"-" + digits(rng, 2) + U"-" + digits(rng, 2);
    case 4: return digits(rng, 2) + U":" + digits(rng, 2);
    default: return digits(rng, 1 + rng.below(2)) + (rng.uniform() < 0.5 ? U"%" : U"\u20ac");
  }
}

std::u32string latin_token(SplitMix64& rng) {
  std::u32string token = rng.uniform() < 0.75 ? pseudo_word(rng) : number_token(rng);
  const double mark = rng.uniform();
  static const std::u32string trailing = U",.;:!?";
  if (mark < 0.2) token.push_back(pick(trailing, rng));
  else if (mark < 0.25) token = U"(" + token + U")";
  else if (mark < 0.3) token = U"\"" + token + U"\"";
  else if (mark < 0.33) token += U"'s";
  else if (mark < 0.36) token = U"-" + token;
  return token;
}

std::u32string line_text(PrintedScript script, int64_t max_length, const std::u32string& hanzi, SplitMix64& rng) {
  if (script == PrintedScript::chinese) {
    const uint64_t length = 2 + rng.below(static_cast<uint64_t>(std::max<int64_t>(std::min<int64_t>(max_length, 12) - 1, 1)));
    std::u32string text;
    for (uint64_t i = 0; i < length; ++i) text.push_back(rng.uniform() < 0.1 ? U'0' + static_cast<char32_t>(rng.below(10)) : pick(hanzi, rng));
    return text;
  }
  const auto target = static_cast<size_t>(3 + rng.below(static_cast<uint64_t>(std::max<int64_t>(max_length - 2, 1))));
  std::u32string text;
  while (text.size() < target) {
    std::u32string token = latin_token(rng);
    if (text.empty()) {
      text = token;
    } else if (text.size() + 1 + token.size() <= static_cast<size_t>(max_length)) {
      text += U" " + token;
    } else {
      break;
    }
  }
  if (text.size() > static_cast<size_t>(max_length)) text.resize(static_cast<size_t>(max_length));
  while (!text.empty() && text.back() == U' ') text.pop_back();
  return text;
}

// FreeType faces are not thread-safe: one per thread and font file.
cv::freetype::FreeType2& face(const std::string& file) {
  thread_local std::map<std::string, cv::Ptr<cv::freetype::FreeType2>> faces;
  auto& slot = faces[file];
  if (!slot) {
    slot = cv::freetype::createFreeType2();
    slot->loadFontData(file, 0);
  }
  return *slot;
}

// The text's ink as CV_32F coverage: glyphs one by one with extra spacing, a band from the
// font's ascender to its descender plus random margins, then a slight rotation.
cv::Mat render_line(const std::u32string& text, const std::string& file, const std::string& reference_glyphs,
                    SplitMix64& rng) {
  cv::freetype::FreeType2& font = face(file);
  const int size = static_cast<int>(std::lround(rng.uniform(22, 36)));
  const double spacing = rng.uniform(-0.5, 3.5) * size / 28.0;
  std::vector<std::string> pieces;
  std::vector<double> advances;
  double width = 0;
  for (char32_t c : text) {
    pieces.push_back(encode_utf8(std::u32string(1, c)));
    int baseline = 0;
    const cv::Size box = font.getTextSize(pieces.back(), size, -1, &baseline);
    advances.push_back((c == U' ' ? 0.3 * size : box.width) + spacing);
    width += advances.back();
  }
  const int margin_left = static_cast<int>(std::lround(rng.uniform(0.1, 0.5) * size));
  const int margin_right = static_cast<int>(std::lround(rng.uniform(0.1, 0.5) * size));
  const int canvas_width = margin_left + static_cast<int>(std::ceil(width)) + margin_right;
  const cv::Point origin(margin_left, 2 * size);
  // FreeType2::putText draws on 3-channel images only; channel 0 is kept as the coverage.
  cv::Mat ink = cv::Mat::zeros(3 * size, std::max(canvas_width, 1), CV_8UC3);
  // The band comes from reference glyphs with the tallest ascender and deepest descender, so
  // lines of short letters keep the same scale as others.
  cv::Mat reference = cv::Mat::zeros(ink.size(), CV_8UC3);
  font.putText(reference, reference_glyphs, origin, size, cv::Scalar(255), -1, cv::LINE_AA, true);
  double x = origin.x;
  for (size_t i = 0; i < pieces.size(); ++i) {
    font.putText(ink, pieces[i], cv::Point(static_cast<int>(std::lround(x)), origin.y), size, cv::Scalar(255), -1,
                 cv::LINE_AA, true);
    x += advances[i];
  }
  cv::Mat coverage, reference_coverage;
  cv::extractChannel(ink, coverage, 0);
  cv::extractChannel(reference, reference_coverage, 0);
  const cv::Rect band = cv::boundingRect(reference_coverage) | cv::boundingRect(coverage);
  const int top = std::max(0, band.y - static_cast<int>(std::lround(rng.uniform(0.05, 0.3) * size)));
  const int bottom = std::min(coverage.rows, band.y + band.height + static_cast<int>(std::lround(rng.uniform(0.05, 0.3) * size)));
  cv::Mat line;
  coverage.rowRange(top, bottom).convertTo(line, CV_32F, 1.0 / 255.0);
  const double angle = rng.uniform(-2.5, 2.5);
  const cv::Mat rotation = cv::getRotationMatrix2D(cv::Point2f(line.cols / 2.0f, line.rows / 2.0f), angle, 1.0);
  cv::warpAffine(line, line, rotation, line.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT, 0);
  return line;
}

}  // namespace
#endif

SynthSetSummary write_synth_printed(const SynthPrintedOptions& options) {
#ifndef TRAINER_HAVE_FREETYPE
  (void)options;
  throw UserError("this build has no OpenCV freetype module (Debian libopencv-contrib-dev), which renders the printed set");
#else
  if (options.max_length < 3) throw UserError("printed lines need a max length of at least 3 characters");
  const std::vector<FontFamily> families = installed_fonts(options.script);
  const std::u32string hanzi = common_hanzi();
  // Glyphs with the tallest ascender and deepest descender of the script (see render_line).
  const std::string reference_glyphs = options.script == PrintedScript::latin ? "Hgjy|" : "\xe5\x9b\xbd\xe4\xb8\x80Hg";
  prepare_generated_root(options.out, {"train", "val"}, options.force);
  const std::vector<std::pair<std::string, int64_t>> splits{{"train", options.train}, {"val", options.val}};
  for (size_t s = 0; s < splits.size(); ++s) {
    for (size_t f = 0; f < families.size(); ++f) {
      const FontFamily& family = families[f];
      // Families share the split's count evenly; the first ones take the remainder.
      const int64_t count = splits[s].second / static_cast<int64_t>(families.size()) +
                            (static_cast<int64_t>(f) < splits[s].second % static_cast<int64_t>(families.size()) ? 1 : 0);
      const fs::path folder = options.out / splits[s].first / family.name;
      fs::create_directories(folder);
      std::vector<std::string> filenames(static_cast<size_t>(count)), words(static_cast<size_t>(count));
      parallel_for_each_index(static_cast<size_t>(count), [&](size_t i) {
        SplitMix64 rng(derive_seed(options.seed, RngStream::augment, {s, f, i, static_cast<uint64_t>(options.script)}));
        const std::u32string text = line_text(options.script, options.max_length, hanzi, rng);
        const std::string& file = family.files[rng.below(family.files.size())];
        const cv::Mat image = ink_on_paper(render_line(text, file, reference_glyphs, rng), rng, 0.1);
        char name[32];
        std::snprintf(name, sizeof(name), "%06zu.png", i);
        if (!cv::imwrite((folder / name).string(), image)) throw UserError("cannot write " + (folder / name).string());
        filenames[i] = name;
        words[i] = encode_utf8(text);
      });
      write_ocr_labels(folder, filenames, words);
    }
  }
  return {options.out, options.train, options.val};
#endif
}

}  // namespace trainer
