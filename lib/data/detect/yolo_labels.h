// The YOLO label format (Ultralytics, Darknet): for root/images/<sub>/name.jpg the file
// root/labels/<sub>/name.txt holds one "class cx cy w h" line per object, the box's centre and
// size normalised to the image's width and height. No file, or an empty one, means the image
// shows no object.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

struct YoloBox {
  int64_t cls = 0;
  float cx = 0, cy = 0, w = 0, h = 0;  ///< normalised to the image, the box within [0, 1]
};

// The label file of an image: the last "/images/" of the path becomes "/labels/" and the
// extension ".txt". Paths without an "/images/" folder keep their folder.
std::string label_path_for(const std::string& image_path);

struct ParsedLabels {
  bool found = false;                 ///< the label file exists
  std::vector<YoloBox> boxes;         ///< valid, distinct lines in file order
  std::vector<std::string> problems;  ///< "file:line: what is wrong" for each line left out
  int64_t duplicates = 0;             ///< lines repeating an earlier one, left out silently
};

// Reads `path` for a dataset of `classes` classes. A line is left out, with a problem naming
// it, when it does not hold five numbers, holds NaN or infinity, a class that is not an integer
// in [0, classes), a coordinate outside [0, 1] by more than 0.01 (Ultralytics' tolerance), or
// a box without area; boxes reaching past the image by less than the tolerance are clipped.
// A missing file is no error (found = false); an unreadable one is a UserError.
ParsedLabels parse_label_file(const std::string& path, int64_t classes);

}  // namespace trainer
