#include "plot/plot_style.h"

#include <opencv2/imgproc.hpp>

namespace trainer {

cv::Scalar class_colour(int64_t cls) {
  cv::Mat hsv(1, 1, CV_8UC3, cv::Scalar(static_cast<double>((cls * 47) % 180), 220, 230)), bgr;
  cv::cvtColor(hsv, bgr, cv::COLOR_HSV2BGR);
  const cv::Vec3b pixel = bgr.at<cv::Vec3b>(0, 0);
  return {static_cast<double>(pixel[0]), static_cast<double>(pixel[1]), static_cast<double>(pixel[2])};
}

cv::Scalar blue_shade(double share) {
  const cv::Vec3d light(255, 251, 247), dark(107, 48, 8);
  const cv::Vec3d mixed = light + (dark - light) * share;
  return {mixed[0], mixed[1], mixed[2]};
}

void put_chart_text(cv::Mat& canvas, const std::string& text, cv::Point origin, double scale, const cv::Scalar& colour) {
  cv::putText(canvas, text, origin, cv::FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv::LINE_AA);
}

int chart_text_width(const std::string& text, double scale) {
  int baseline = 0;
  return cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, scale, 1, &baseline).width;
}

std::string shortened(const std::string& text, size_t most) {
  return text.size() <= most ? text : text.substr(0, most - 1) + "~";
}

}  // namespace trainer
