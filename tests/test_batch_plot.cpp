// train_batch*.jpg: inputs turned back into pixels, and the grid with boxes and captions.
#include <catch2/catch.hpp>

#include <opencv2/imgcodecs.hpp>

#include "plot/batch_plot.h"
#include "plot/plot_style.h"
#include "test_helpers.h"

using namespace trainer;
using trainer::testing::TempDir;

TEST_CASE("a normalised input turns back into its pixels, grey repeated", "[io]") {
  // 2 x 2 pixels, R G B planes normalised with ImageNet's mean and std.
  const std::vector<double> mean{0.485, 0.456, 0.406}, std{0.229, 0.224, 0.225};
  const std::vector<uint8_t> pixels{0, 64, 128, 255, 10, 20, 30, 40, 200, 201, 202, 203};
  torch::Tensor input = torch::empty({3, 2, 2});
  for (int64_t c = 0; c < 3; ++c) {
    for (int64_t i = 0; i < 4; ++i) {
      input[c][i / 2][i % 2] = (pixels[static_cast<size_t>(c * 4 + i)] / 255.0 - mean[static_cast<size_t>(c)]) /
                               std[static_cast<size_t>(c)];
    }
  }
  const cv::Mat rgb = input_to_rgb(input, mean, std);
  REQUIRE(rgb.size() == cv::Size(2, 2));
  for (int i = 0; i < 4; ++i) {
    const cv::Vec3b pixel = rgb.at<cv::Vec3b>(i / 2, i % 2);
    CHECK(pixel == cv::Vec3b(pixels[static_cast<size_t>(i)], pixels[static_cast<size_t>(4 + i)], pixels[static_cast<size_t>(8 + i)]));
  }
  // A text line's grey (x - 0.5) / 0.5, out-of-range values clamped.
  const cv::Mat grey = input_to_rgb(torch::tensor({-1.0f, 0.0f, 1.0f, 3.0f}).reshape({1, 1, 4}), {0.5}, {0.5});
  CHECK(grey.at<cv::Vec3b>(0, 0) == cv::Vec3b(0, 0, 0));
  CHECK(grey.at<cv::Vec3b>(0, 1) == cv::Vec3b(128, 128, 128));
  CHECK(grey.at<cv::Vec3b>(0, 2) == cv::Vec3b(255, 255, 255));
  CHECK(grey.at<cv::Vec3b>(0, 3) == cv::Vec3b(255, 255, 255));
}

TEST_CASE("the batch grid places samples row by row with their boxes", "[io]") {
  TempDir dir("batch-plot");
  std::vector<PlottedSample> samples;
  for (int i = 0; i < 5; ++i) {
    samples.push_back({cv::Mat(100, 120, CV_8UC3, cv::Scalar(0, 0, 10 * i)), {}, ""});
  }
  samples[4].boxes.push_back({cv::Rect2f(20, 10, 15, 15), 2, "x"});
  draw_batch_grid(samples, dir / "grid.png");
  const cv::Mat grid = cv::imread(dir.file("grid.png"), cv::IMREAD_COLOR);
  // Five samples: three columns, two rows of 120 x 100 cells; sample 4 is the second of row two.
  REQUIRE(grid.size() == cv::Size(360, 200));
  CHECK(grid.at<cv::Vec3b>(105, 5) == cv::Vec3b(30, 0, 0));   // sample 3's blue (BGR), row 2, column 1
  CHECK(grid.at<cv::Vec3b>(5, 245) == cv::Vec3b(20, 0, 0));   // sample 2, row 1, column 3
  // The box's bottom edge (sample 4 at (120, 100), box bottom at y 25) in the class's colour.
  const cv::Scalar colour = class_colour(2);
  CHECK(grid.at<cv::Vec3b>(100 + 25, 120 + 28) ==
        cv::Vec3b(static_cast<uint8_t>(colour[0]), static_cast<uint8_t>(colour[1]), static_cast<uint8_t>(colour[2])));
  CHECK(grid.at<cv::Vec3b>(100 + 25, 120 + 10) == cv::Vec3b(40, 0, 0));  // left of the box: the sample's own blue

  // Text lines 32 px high are enlarged three times: 2 x 2 cells of 300 x 96.
  const std::vector<PlottedSample> lines(4, PlottedSample{cv::Mat(32, 100, CV_8UC3, cv::Scalar::all(128)), {}, "42"});
  draw_batch_grid(lines, dir / "lines.png");
  CHECK(cv::imread(dir.file("lines.png"), cv::IMREAD_COLOR).size() == cv::Size(600, 192));
}
