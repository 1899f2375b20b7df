// An Ultralytics detection data.yaml:
//   path: ../datasets/coco8   # dataset root; a relative one is taken from the working directory when
//                             # there (Ultralytics' rule), else from this file's folder when there, else
//                             # under the user settings' datasets_dir; default: this file's folder
//   train: images/train       # an image folder, a .txt file listing images, or a list of those
//   val: images/val
//   test:                     # optional
//   names: {0: person, 1: bicycle}   # or a list [person, bicycle]
//   nc: 2                     # optional; must equal the number of names
// Other keys (yaml_file, ...) are ignored, as Ultralytics ignores unknown ones; `download:` is
// never run, and with the data missing the error says where the data must go.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace trainer {

// The most classes a data.yaml or a detection checkpoint may claim: far above any detection set
// (LVIS has 1203), and a bound on what a count read from a file makes (a name, a head channel per
// class), which a count of billions would turn into a memory bomb.
constexpr int64_t kMaxClasses = 100000;

struct DetectDataConfig {
  std::string file;                     ///< the data.yaml read, for messages
  std::filesystem::path root;           ///< `path`, made absolute
  std::vector<std::string> train, val;  ///< image sources under root: folders, .txt lists or image files
  std::vector<std::string> test;        ///< empty when the file has no test split
  std::vector<std::string> names;       ///< class names by index
};

// Throws UserError naming the file, the line and the key for missing or malformed keys, names
// that are not a list or a {0..n-1: name} mapping, nc disagreeing with names, or a source that
// does not exist.
DetectDataConfig read_detect_data_config(const std::string& file);

// The image files that sources name, sorted and without repeats: folders are searched
// recursively; a .txt file lists one image per line, relative lines taken from the list's own
// folder (Ultralytics' "./" prefix included); an image file stands for itself. UserError when a
// source is missing or no image is found.
std::vector<std::string> list_images(const std::vector<std::string>& sources);

}  // namespace trainer
