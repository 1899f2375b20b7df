#include "data/synth/synth_output.h"

#include "util/atomic_file.h"
#include "util/error.h"

namespace trainer {

namespace fs = std::filesystem;

void prepare_generated_root(const fs::path& root, const std::vector<std::string>& entries, bool force) {
  std::error_code error;
  if (fs::exists(root, error) && !fs::is_empty(root, error)) {
    if (!force) throw UserError(root.string() + " already exists and is not empty; pass --force to replace it");
    for (const auto& entry : entries) fs::remove_all(root / entry);
  }
  fs::create_directories(root, error);
  if (error) throw UserError("cannot create " + root.string() + ": " + error.message());
}

void write_image_table(const fs::path& path, const std::string& column, const std::vector<std::string>& filenames,
                       const std::vector<std::string>& values) {
  std::string table = "filename," + column + "\n";
  for (size_t i = 0; i < filenames.size(); ++i) table += filenames[i] + "," + values[i] + "\n";
  write_file_atomically(path, table);
}

void write_ocr_labels(const fs::path& folder, const std::vector<std::string>& filenames,
                      const std::vector<std::string>& words) {
  write_image_table(folder / "labels.csv", "words", filenames, words);
}

}  // namespace trainer
