// train_batch0.jpg, train_batch1.jpg, …: the first training batches as the model receives them
// (after augmentation), in a grid with their labels, as Ultralytics draws them, so a wrong label,
// box or augmentation shows before hours are spent training on it.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <opencv2/core.hpp>

namespace trainer {

struct PlottedBox {
  cv::Rect2f box;    ///< in the sample's pixels
  int64_t cls = 0;   ///< picks the colour
  std::string name;
};

struct PlottedSample {
  cv::Mat rgb;                    ///< uint8 RGB
  std::vector<PlottedBox> boxes;  ///< detection
  std::string caption;            ///< classification and text lines: the label
};

// One input [C, H, W] of a batch back to uint8 RGB: (value × std + mean) × 255 per channel, grey
// repeated to three channels, rounded and clamped.
cv::Mat input_to_rgb(const at::Tensor& input, const std::vector<double>& mean, const std::vector<double>& std);

// `text` in white on a filled tag whose bottom-left is `corner`, moved down when it would leave
// the image at the top; font scale 0.4 × thickness.
void draw_tag(cv::Mat& bgr, const std::string& text, cv::Point corner, const cv::Scalar& background, int thickness);

// A box outlined in `colour` with `label` on a tag above its top-left corner: predict's
// annotated images and the batch plots.
void draw_labelled_box(cv::Mat& bgr, const cv::Rect& box, const cv::Scalar& colour, const std::string& label,
                       int thickness);

// Up to 16 samples in a square-ish grid of equal cells, at most 1920 px wide and enlarged to
// about 96 px high when smaller, each with its boxes and caption; written as `path` (.jpg or .png).
void draw_batch_grid(const std::vector<PlottedSample>& samples, const std::filesystem::path& path);

}  // namespace trainer
