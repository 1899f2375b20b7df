// Small string helpers shared by the config layer and the CLI.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace trainer {

std::string to_lower(std::string_view text);
std::string trim(std::string_view text);
// Levenshtein distance (insertions, deletions, substitutions cost 1): per byte for did-you-mean
// suggestions, per code point for recognised text.
size_t edit_distance(std::string_view a, std::string_view b);
size_t edit_distance(std::u32string_view a, std::u32string_view b);
// The candidate closest to `word`, or "" when none is close enough to be a plausible typo: no
// letter changed for words of up to 3 letters, one for up to 6, two for longer ones.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);
// " (did you mean 'candidate'?)" for the closest match, or "" when there is none.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
// The first `shown` parts joined, then " and N more" for the rest: lists in messages stay one
// readable line however many items there are.
std::string join_first(const std::vector<std::string>& parts, std::string_view separator, size_t shown = 5);

}  // namespace trainer
