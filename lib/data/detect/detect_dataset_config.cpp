#include "data/detect/detect_dataset_config.h"

#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <map>

#include "config/user_settings.h"
#include "data/read_image.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

std::string where(const std::string& file, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return file + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

// What to say when data a file names is missing: its `download:` is not run here.
std::string missing_data_hint(const YAML::Node& root, const fs::path& data_root) {
  if (!root["download"]) return "";
  return "; the data file's `download:` is not run here (nothing is downloaded, no network access is used): put the "
         "data under " +
         data_root.string();
}

// The user settings' datasets_dir, made absolute.
fs::path datasets_folder() { return fs::absolute(datasets_dir()).lexically_normal(); }

// Ultralytics' rule for a relative `path:` (check_det_dataset): from the working directory, else
// under the user settings' datasets_dir; then, where neither holds it, from the data file's folder,
// as before here. Where none holds it, the data file's folder's reading, which the error names.
// Without `path:`, the data file's folder.
fs::path resolve_root(const std::string& file, const YAML::Node& path) {
  const fs::path folder = fs::absolute(file).parent_path();
  if (!path || !path.IsScalar() || path.Scalar().empty()) return folder.lexically_normal();
  const fs::path given(path.Scalar());
  std::error_code error;
  if (given.is_absolute() || fs::is_directory(given, error)) return fs::absolute(given).lexically_normal();
  const fs::path stored = (datasets_folder() / given).lexically_normal();
  if (fs::is_directory(stored, error)) return stored;
  return (folder / given).lexically_normal();
}

// Where one source of a split is: under the root, or, for a `../x` that is not there, `x` under the
// root. Ultralytics retries so because Roboflow's exports write `train: ../train/images` beside a
// data.yaml that sits in the folder holding train/ (a list's items are not retried, as there).
fs::path source_path(const fs::path& base, const YAML::Node& item, bool is_single) {
  const std::string& text = item.Scalar();
  const fs::path path = (base / text).lexically_normal();
  std::error_code error;
  if (is_single && !fs::exists(path, error) && text.rfind("../", 0) == 0) {
    return (base / text.substr(3)).lexically_normal();
  }
  return path;
}

std::vector<std::string> sources(const std::string& file, const YAML::Node& root, const fs::path& base,
                                 const std::string& key) {
  const YAML::Node node = root[key];
  // Ultralytics skips empty values ("test: ''") like absent ones.
  if (!node || node.IsNull() || (node.IsScalar() && node.Scalar().empty())) return {};
  std::vector<YAML::Node> items;
  if (node.IsScalar()) {
    items.push_back(node);
  } else if (node.IsSequence()) {
    for (const YAML::Node& item : node) items.push_back(item);
  }
  if (items.empty()) {
    throw UserError(where(file, node) + ": key '" + key + "' expects a path or a list of paths");
  }
  std::vector<std::string> paths;
  for (const YAML::Node& item : items) {
    if (!item.IsScalar()) throw UserError(where(file, item) + ": key '" + key + "' expects paths, not mappings");
    const fs::path path = source_path(base, item, node.IsScalar());
    std::error_code error;
    if (!fs::exists(path, error)) {
      throw UserError(where(file, item) + ": key '" + key + "': " + path.string() + " does not exist" +
                      missing_data_hint(root, base));
    }
    paths.push_back(path.string());
  }
  return paths;
}

// Ultralytics renames a data file's `validation:` to `val:` when it has no `val:`.
std::string validation_key(const std::string& file, const YAML::Node& root) {
  if (root["val"] || !root["validation"]) return "val";
  spdlog::info("{}: the data file's 'validation' key is its val split, as Ultralytics reads it", file);
  return "validation";
}

// A split nothing here trains or validates on (test): where its folder is missing the run goes
// on, as Ultralytics requires only train and val to exist.
std::vector<std::string> optional_sources(const std::string& file, const YAML::Node& root, const fs::path& base,
                                          const std::string& key) {
  try {
    return sources(file, root, base, key);
  } catch (const UserError& error) {
    spdlog::warn("{} (the {} split is not needed for training; it is left out)", error.what(), key);
    return {};
  }
}

std::vector<std::string> class_names(const std::string& file, const YAML::Node& names) {
  if (names.IsSequence()) {
    std::vector<std::string> list;
    for (const YAML::Node& name : names) {
      if (!name.IsScalar()) throw UserError(where(file, name) + ": key 'names': a class name must be a string");
      list.push_back(name.Scalar());
    }
    return list;
  }
  if (!names.IsMap()) {
    throw UserError(where(file, names) + ": key 'names' expects a list of names or a mapping {0: name, 1: name, ...}");
  }
  std::map<int64_t, std::string> by_index;
  for (const auto& entry : names) {
    int64_t index = -1;
    if (!YAML::convert<int64_t>::decode(entry.first, index) || index < 0 || !entry.second.IsScalar()) {
      throw UserError(where(file, entry.first) + ": key 'names': expected 'index: name' with an index >= 0");
    }
    by_index[index] = entry.second.Scalar();
  }
  std::vector<std::string> list;
  for (const auto& [index, name] : by_index) {
    if (index != int64_t(list.size())) {
      throw UserError(where(file, names) + ": key 'names': the indices must be 0.." +
                      std::to_string(by_index.size() - 1) + " without gaps; " + std::to_string(list.size()) +
                      " is missing");
    }
    list.push_back(name);
  }
  return list;
}

std::vector<std::string> read_names(const std::string& file, const YAML::Node& root) {
  const YAML::Node names = root["names"], nc = root["nc"];
  int64_t count = -1;
  if (nc && (!YAML::convert<int64_t>::decode(nc, count) || count < 1 || count > kMaxClasses)) {
    throw UserError(where(file, nc) + ": key 'nc' expects a class count from 1 to " + std::to_string(kMaxClasses));
  }
  if (!names) {
    if (count < 0) throw UserError(file + ": 'names' (the class names) is missing");
    std::vector<std::string> generated;
    for (int64_t i = 0; i < count; ++i) generated.push_back("class_" + std::to_string(i));
    return generated;
  }
  std::vector<std::string> list = class_names(file, names);
  if (list.empty()) throw UserError(where(file, names) + ": key 'names' lists no class");
  if (count >= 0 && count != int64_t(list.size())) {
    throw UserError(where(file, nc) + ": key 'nc' is " + std::to_string(count) + " but 'names' lists " +
                    std::to_string(list.size()) + " classes");
  }
  return list;
}

void add_listed_images(const fs::path& list, std::vector<std::string>& images) {
  std::ifstream in(list);
  if (!in) throw UserError("cannot read image list " + list.string());
  for (std::string line; std::getline(in, line);) {
    const std::string entry = trim(line);
    if (entry.empty()) continue;
    const fs::path path(entry);
    const fs::path resolved = path.is_absolute() ? path : (list.parent_path() / path).lexically_normal();
    if (has_image_extension(resolved)) images.push_back(resolved.string());
  }
}

}  // namespace

DetectDataConfig read_detect_data_config(const std::string& file) {
  YAML::Node loaded;
  try {
    loaded = YAML::LoadFile(file);
  } catch (const YAML::BadFile&) {
    throw UserError("data file not found: " + file);
  } catch (const YAML::Exception& error) {
    throw UserError(file + ":" + std::to_string(error.mark.line + 1) + ":" + std::to_string(error.mark.column + 1) +
                    ": invalid YAML: " + error.msg);
  }
  // Read through a const node: a non-const operator[] may add the keys it looks up.
  const YAML::Node& root = loaded;
  if (!root.IsMap()) throw UserError(file + ": a data file is a mapping with train, val and names keys");

  DetectDataConfig config;
  config.file = file;
  const YAML::Node path = root["path"];
  if (path && !path.IsNull() && !path.IsScalar()) throw UserError(where(file, path) + ": key 'path' expects a folder");
  config.root = resolve_root(file, path);
  std::error_code error;
  if (!fs::is_directory(config.root, error)) {
    throw UserError(where(file, path ? path : root) + ": key 'path': " + config.root.string() + " is not a folder" +
                    (path && path.IsScalar() && fs::path(path.Scalar()).is_relative()
                         ? " (nor is " + path.Scalar() + " from the working directory, nor under datasets_dir " +
                               datasets_folder().string() + ")"
                         : "") +
                    missing_data_hint(root, config.root));
  }
  config.train = sources(file, root, config.root, "train");
  config.val = sources(file, root, config.root, validation_key(file, root));
  config.test = optional_sources(file, root, config.root, "test");
  if (config.train.empty()) throw UserError(file + ": key 'train' is missing or empty");
  if (config.val.empty()) throw UserError(file + ": key 'val' is missing or empty");
  config.names = read_names(file, root);
  return config;
}

std::vector<std::string> list_images(const std::vector<std::string>& sources) {
  std::vector<std::string> images;
  for (const std::string& source : sources) {
    std::error_code error;
    if (fs::is_directory(source, error)) {
      for (const auto& entry :
           fs::recursive_directory_iterator(source, fs::directory_options::follow_directory_symlink)) {
        if (entry.is_regular_file() && has_image_extension(entry.path())) images.push_back(entry.path().string());
      }
    } else if (!fs::is_regular_file(source, error)) {
      throw UserError("no such image folder or list file: " + source);
    } else if (has_image_extension(source)) {
      images.push_back(source);
    } else {
      add_listed_images(source, images);
    }
  }
  std::sort(images.begin(), images.end());
  images.erase(std::unique(images.begin(), images.end()), images.end());
  if (images.empty()) throw UserError("no images (.png, .jpg, .jpeg, .bmp) found in " + join(sources, ", "));
  return images;
}

}  // namespace trainer
