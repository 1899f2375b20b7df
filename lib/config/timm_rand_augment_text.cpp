#include "config/timm_rand_augment_text.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <vector>

namespace trainer {
namespace {

// Above this, timm samples the magnitude uniformly (its mstd > 100 rule); written back as 1000.
constexpr double kUniformNoise = 100.0;

std::vector<std::string> sections_of(const std::string& text) {
  std::vector<std::string> sections;
  std::istringstream in(text);
  for (std::string section; std::getline(in, section, '-');) sections.push_back(section);
  return sections;
}

bool read_number(const std::string& text, bool integer, double& value) {
  char* end = nullptr;
  value = integer ? double(std::strtoll(text.c_str(), &end, 10)) : std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0';
}

// One section's name and number into `spec`; the problem, or "" when it is taken.
std::string read_section(const std::string& name, const std::string& number, TimmRandAugmentSpec& spec) {
  if (name == "inc") {
    spec.increasing = true;
    return "";
  }
  const bool integer = name != "mstd";
  double value = 0;
  if (!read_number(number, integer, value)) return "section '" + name + number + "' needs " + (integer ? "an integer" : "a number");
  if (name == "m") {
    spec.magnitude = value;
  } else if (name == "n") {
    if (value < 1) return "n (ops per image) must be at least 1";
    spec.layers = int64_t(value);
  } else if (name == "mstd") {
    spec.magnitude_std = value > kUniformNoise ? std::numeric_limits<double>::infinity() : value;
  } else if (name == "mmax") {
    spec.magnitude_max = value;
  } else if (name == "w") {
    return "timm's weighted op choice (w) is not offered: ops are chosen uniformly";
  } else {
    return "unknown section '" + name + number + "' (timm reads m, n, mstd, mmax, inc and w)";
  }
  return "";
}

}  // namespace

bool is_timm_rand_augment(const std::string& text) { return text == "rand" || text.rfind("rand-", 0) == 0; }

std::optional<std::string> read_timm_rand_augment(const std::string& text, TimmRandAugmentSpec& spec) {
  const std::vector<std::string> sections = sections_of(text);
  if (sections.empty() || sections.front() != "rand") return "a timm RandAugment string starts with 'rand'";
  spec = {};
  for (size_t i = 1; i < sections.size(); ++i) {
    const size_t digit = sections[i].find_first_of("0123456789");
    if (digit == std::string::npos) continue;
    const std::string problem = read_section(sections[i].substr(0, digit), sections[i].substr(digit), spec);
    if (!problem.empty()) return problem;
  }
  return std::nullopt;
}

std::string timm_rand_augment_text(const TimmRandAugmentSpec& spec) {
  std::ostringstream out;
  out << "rand-m" << spec.magnitude << "-n" << spec.layers;
  if (std::isinf(spec.magnitude_std)) {
    out << "-mstd" << 10 * kUniformNoise;
  } else if (spec.magnitude_std > 0) {
    out << "-mstd" << spec.magnitude_std;
  }
  if (spec.magnitude_max != TimmRandAugmentSpec{}.magnitude_max) out << "-mmax" << spec.magnitude_max;
  if (spec.increasing) out << "-inc1";
  return out.str();
}

}  // namespace trainer
