// The curve charts a detection validation leaves (PR_curve.png, ...): where the curves land, how
// classes are coloured, and when the files are written.
#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>

#include "plot/plot_style.h"
#include "run/curve_chart_plot.h"
#include "run/validation_files.h"
#include "test_helpers.h"

using namespace trainer;
using namespace trainer::testing;

namespace {

// Classes whose curves are flat at `class_level`, under a flat all-classes curve at `mean_level`.
CurveChart flat_chart(size_t classes, double class_level, double mean_level) {
  CurveChart chart{"PR_curve", "Precision-Recall Curve", "Recall", "Precision", {0.0, 0.5, 1.0}, {}, {}, {}, "all"};
  for (size_t c = 0; c < classes; ++c) {
    chart.labels.push_back("class " + std::to_string(c));
    chart.curves.push_back(std::vector<double>(3, class_level));
  }
  chart.mean = std::vector<double>(3, mean_level);
  return chart;
}

// The pixel at the middle of the axes' width, `level` of the way up.
cv::Point point_at(double level) {
  const cv::Rect axes = curve_chart_axes();
  return {axes.x + axes.width / 2, axes.y + static_cast<int>(std::lround((1 - level) * axes.height))};
}

// Whether a pixel within a row of that point has about this colour (anti-aliasing spreads a thin
// line over two rows).
bool drawn_at(const cv::Mat& image, double level, const cv::Scalar& colour) {
  const cv::Point centre = point_at(level);
  for (int dy = -1; dy <= 1; ++dy) {
    const cv::Vec3b pixel = image.at<cv::Vec3b>(centre + cv::Point(0, dy));
    if (std::abs(pixel[0] - colour[0]) <= 12 && std::abs(pixel[1] - colour[1]) <= 12 && std::abs(pixel[2] - colour[2]) <= 12) {
      return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("a curve chart puts each curve at its height, classes in their colours and grey past 20", "[io]") {
  TempDir dir("curve-chart");
  draw_curve_chart(flat_chart(2, 0.25, 0.75), dir / "few.png");
  const cv::Mat few = cv::imread(dir.file("few.png"), cv::IMREAD_COLOR);
  REQUIRE(!few.empty());
  CHECK(drawn_at(few, 0.75, curve_chart_mean_colour()));
  CHECK(drawn_at(few, 0.25, class_colour(1)));  // the last class drawn on top
  CHECK_FALSE(drawn_at(few, 0.25, curve_chart_mean_colour()));
  CHECK(few.at<cv::Vec3b>(point_at(0.5)) == cv::Vec3b(255, 255, 255));

  draw_curve_chart(flat_chart(21, 0.4, 0.6), dir / "many.png");
  const cv::Mat many = cv::imread(dir.file("many.png"), cv::IMREAD_COLOR);
  REQUIRE(!many.empty());
  CHECK(drawn_at(many, 0.6, curve_chart_mean_colour()));
  CHECK(drawn_at(many, 0.4, cv::Scalar(150, 150, 150)));
  CHECK_FALSE(drawn_at(many, 0.4, class_colour(20)));
}

TEST_CASE("validation files: the curve charts only with plots, the confusion matrix's CSV always", "[io]") {
  TempDir dir("validation-files");
  const ConfusionMatrix matrix{{"a", "background"}, {1, 0, 0, 0}};
  const std::vector<CurveChart> charts{flat_chart(1, 0.5, 0.5)};
  save_validation_files(matrix, charts, dir.path(), false);
  CHECK(std::filesystem::exists(dir / "confusion_matrix.csv"));
  CHECK(!std::filesystem::exists(dir / "confusion_matrix.png"));
  CHECK(!std::filesystem::exists(dir / "PR_curve.png"));
  save_validation_files(std::nullopt, charts, dir.path(), true);
  CHECK(!cv::imread(dir.file("PR_curve.png")).empty());
  CHECK(!std::filesystem::exists(dir / "confusion_matrix.png"));
}
