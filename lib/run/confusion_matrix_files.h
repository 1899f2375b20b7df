// confusion_matrix.csv (the counts) and confusion_matrix.png (each true class's column normalised
// to 1, Ultralytics' normalised plot) of a validation, in a run folder or `trainer val`'s folder.
#pragma once
#include <filesystem>
#include <string>

#include "engine/metrics.h"

namespace trainer {

// A header row (`predicted\true` and the names), then one row per predicted class: its name and
// its counts. Names holding a comma or a quote are quoted.
std::string confusion_matrix_csv(const ConfusionMatrix& matrix);

void draw_confusion_matrix(const ConfusionMatrix& matrix, const std::filesystem::path& path);

// Writes folder/confusion_matrix.csv, and folder/confusion_matrix.png when `draw`.
void save_confusion_matrix(const ConfusionMatrix& matrix, const std::filesystem::path& folder, bool draw);

}  // namespace trainer
