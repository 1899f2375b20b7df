#include "data/resize_image.h"

#include <opencv2/imgproc.hpp>

namespace trainer {

cv::Mat resize_to(const cv::Mat& image, cv::Size size) {
  if (image.size() == size) return image;
  cv::Mat resized;
  const bool shrinking = size.width < image.cols && size.height < image.rows;
  cv::resize(image, resized, size, 0, 0, shrinking ? cv::INTER_AREA : cv::INTER_LINEAR);
  return resized;
}

}  // namespace trainer
