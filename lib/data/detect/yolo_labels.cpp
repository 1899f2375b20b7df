#include "data/detect/yolo_labels.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/error.h"

namespace trainer {
namespace {

constexpr double kTolerance = 0.01;

// Whole-token parse: "1.5x" and "" are not numbers, where strtod alone would accept a prefix.
bool parse_number(const std::string& token, double& value) {
  char* end = nullptr;
  value = std::strtod(token.c_str(), &end);
  return !token.empty() && end == token.c_str() + token.size();
}

// The box of one line, or a description of what is wrong with it.
std::string parse_line(const std::string& line, int64_t classes, YoloBox& box) {
  std::istringstream in(line);
  std::vector<std::string> tokens;
  for (std::string token; in >> token;) tokens.push_back(token);
  if (tokens.size() != 5) {
    return "expected 5 columns (class cx cy w h), found " + std::to_string(tokens.size());
  }
  double values[5];
  for (size_t i = 0; i < 5; ++i) {
    if (!parse_number(tokens[i], values[i])) return "'" + tokens[i] + "' is not a number";
    if (!std::isfinite(values[i])) return "'" + tokens[i] + "' is not finite";
  }
  if (values[0] != std::floor(values[0]) || values[0] < 0 || values[0] >= double(classes)) {
    return "class " + tokens[0] + " is not one of 0.." + std::to_string(classes - 1);
  }
  for (size_t i = 1; i < 5; ++i) {
    if (values[i] < -kTolerance || values[i] > 1 + kTolerance) {
      return "coordinate " + tokens[i] + " is outside [0, 1]; labels are normalised by the image size";
    }
  }
  const double x1 = std::clamp(values[1] - values[3] / 2, 0.0, 1.0);
  const double x2 = std::clamp(values[1] + values[3] / 2, 0.0, 1.0);
  const double y1 = std::clamp(values[2] - values[4] / 2, 0.0, 1.0);
  const double y2 = std::clamp(values[2] + values[4] / 2, 0.0, 1.0);
  if (x2 <= x1 || y2 <= y1) return "the box has no area inside the image";
  box = {int64_t(values[0]), float((x1 + x2) / 2), float((y1 + y2) / 2), float(x2 - x1), float(y2 - y1)};
  return "";
}

bool same_box(const YoloBox& a, const YoloBox& b) {
  return a.cls == b.cls && a.cx == b.cx && a.cy == b.cy && a.w == b.w && a.h == b.h;
}

}  // namespace

std::string label_path_for(const std::string& image_path) {
  const std::string images = "/images/";
  std::string path = image_path;
  const size_t at = path.rfind(images);
  if (at != std::string::npos) path.replace(at, images.size(), "/labels/");
  return std::filesystem::path(path).replace_extension(".txt").string();
}

ParsedLabels parse_label_file(const std::string& path, int64_t classes) {
  ParsedLabels parsed;
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return parsed;
  std::ifstream in(path);
  if (!in) throw UserError("cannot read label file " + path);
  parsed.found = true;
  std::string line;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    YoloBox box;
    const std::string problem = parse_line(line, classes, box);
    if (!problem.empty()) {
      parsed.problems.push_back(path + ":" + std::to_string(number) + ": " + problem);
    } else if (std::any_of(parsed.boxes.begin(), parsed.boxes.end(),
                           [&](const YoloBox& seen) { return same_box(seen, box); })) {
      ++parsed.duplicates;
    } else {
      parsed.boxes.push_back(box);
    }
  }
  return parsed;
}

}  // namespace trainer
