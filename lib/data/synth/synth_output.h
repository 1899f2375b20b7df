// Shared plumbing of the `trainer data …` generators: the output folder and EasyOCR label files.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace trainer {

// Prepares `root` for a generated set: refuses a non-empty folder unless `force` (then removes the
// `entries`, the folders and files the generator writes), and creates it.
void prepare_generated_root(const std::filesystem::path& root, const std::vector<std::string>& entries, bool force);

// Writes a "filename,<column>" CSV with one line per image, atomically (a temporary file renamed).
void write_image_table(const std::filesystem::path& path, const std::string& column,
                       const std::vector<std::string>& filenames, const std::vector<std::string>& values);

// Writes folder/labels.csv ("filename,words" header, one line per image) atomically.
void write_ocr_labels(const std::filesystem::path& folder, const std::vector<std::string>& filenames,
                      const std::vector<std::string>& words);

}  // namespace trainer
