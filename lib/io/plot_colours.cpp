#include "io/plot_colours.h"

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

}  // namespace trainer
