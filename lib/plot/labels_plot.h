// labels.jpg: what a detection training split holds, drawn before training as Ultralytics does —
// instances per class, the boxes' shapes laid over one another, and the density of box centres
// (x, y) and of box sizes (width, height) — so a missing class, a skewed split or labels in the
// wrong format show before any update.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <opencv2/core/types.hpp>

#include "data/detect/yolo_labels.h"

namespace trainer {

// The four panels' places in the drawn picture: each is kLabelsPanel pixels square, class counts
// top left, box shapes top right, centres bottom left, sizes bottom right; the histograms' axes
// run from 0 to 1 (up) within their panel's plot area.
constexpr int kLabelsPanel = 400;
cv::Rect labels_plot_area(int panel);

// The density panels split [0, 1]² into this many bins a side, each shaded by its share of the
// fullest bin's count (blue_shade).
constexpr int kLabelsBins = 50;

void draw_labels(const std::vector<YoloBox>& boxes, const std::vector<std::string>& names,
                 const std::filesystem::path& path);

}  // namespace trainer
