#include "util/text.h"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace trainer {
namespace {

template <typename View>
size_t levenshtein(View a, View b) {
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string to_lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return "";
  const auto last = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(first, last - first + 1));
}

size_t edit_distance(std::string_view a, std::string_view b) { return levenshtein(a, b); }

size_t edit_distance(std::u32string_view a, std::u32string_view b) { return levenshtein(a, b); }

// A typo changes few letters of a long word, and a short word's one-letter neighbours are usually
// other words (nms and nbs, cfg and cls): the distance allowed grows with the length.
namespace {
size_t typo_distance(size_t length) { return length <= 3 ? 0 : length <= 6 ? 1 : 2; }
}  // namespace

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = typo_distance(word.size()) + 1;
  for (const auto& candidate : candidates) {
    const size_t distance = edit_distance(to_lower(word), candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string suggestion = closest_match(word, candidates);
  return suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)";
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += separator;
    out += parts[i];
  }
  return out;
}

std::string join_first(const std::vector<std::string>& parts, std::string_view separator, size_t shown) {
  if (parts.size() <= shown) return join(parts, separator);
  const std::vector<std::string> first(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(shown));
  return join(first, separator) + " and " + std::to_string(parts.size() - shown) + " more";
}

}  // namespace trainer
