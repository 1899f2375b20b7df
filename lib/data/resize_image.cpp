#include "data/resize_image.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace trainer {

cv::Mat resize_to(const cv::Mat& image, cv::Size size) {
  if (image.size() == size) return image;
  cv::Mat resized;
  const bool shrinking = size.width < image.cols && size.height < image.rows;
  cv::resize(image, resized, size, 0, 0, shrinking ? cv::INTER_AREA : cv::INTER_LINEAR);
  return resized;
}

namespace {

// Along one axis: output pixel i averages source [i * ratio, (i + 1) * ratio), ratio = from / to,
// over `taps` source pixels from first[i] (those it does not cover weigh 0). Every output pixel
// has the same number of taps, so the loops over them run without unpredictable branches.
struct AreaWeights {
  int taps = 0;
  std::vector<int> first;
  std::vector<float> weight;  // taps per output pixel
};

AreaWeights area_weights(int from, int to) {
  const double ratio = double(from) / to;
  AreaWeights w;
  w.taps = std::min(from, int(std::ceil(ratio)) + 1);
  for (int i = 0; i < to; ++i) {
    const double begin = i * ratio, end = std::min(double(from), (i + 1) * ratio);
    const int first = std::min(int(std::floor(begin)), from - w.taps);
    w.first.push_back(first);
    for (int k = first; k < first + w.taps; ++k) {
      const double overlap = std::min(end, double(k + 1)) - std::max(begin, double(k));
      w.weight.push_back(overlap > 0 ? float(overlap / ratio) : 0.0f);
    }
  }
  return w;
}

// Rounded once, as OpenCV's saturate_cast (sums are never negative here); a loop that vectorises.
void round_levels(const float* __restrict sums, int count, uint8_t* __restrict to) {
  for (int i = 0; i < count; ++i) to[i] = uint8_t(int(std::min(255.0f, sums[i]) + 0.5f));
}

// One output row of sums from the averaged source row `line`, three channels and a fixed number of taps
// (the common case, unrolled by the compiler).
template <int Taps>
void average_rgb_columns(const float* line, const AreaWeights& cols, int width, float* to) {
  for (int x = 0; x < width; ++x) {
    const float* weight = &cols.weight[size_t(x * Taps)];
    const float* from = line + cols.first[size_t(x)] * 3;
    float r = 0.0f, g = 0.0f, b = 0.0f;
    for (int k = 0; k < Taps; ++k) {
      r += weight[k] * from[3 * k], g += weight[k] * from[3 * k + 1], b += weight[k] * from[3 * k + 2];
    }
    to[3 * x] = r, to[3 * x + 1] = g, to[3 * x + 2] = b;
  }
}

void average_columns(const float* line, const AreaWeights& cols, int channels, int width, float* to) {
  if (channels == 3 && cols.taps == 3) return average_rgb_columns<3>(line, cols, width, to);
  if (channels == 3 && cols.taps == 4) return average_rgb_columns<4>(line, cols, width, to);
  for (int x = 0; x < width; ++x) {
    const float* weight = &cols.weight[size_t(x * cols.taps)];
    const float* from = line + cols.first[size_t(x)] * channels;
    for (int c = 0; c < channels; ++c) {
      float sum = 0.0f;
      for (int k = 0; k < cols.taps; ++k) sum += weight[k] * from[k * channels + c];
      to[x * channels + c] = sum;
    }
  }
}

}  // namespace

cv::Mat resize_averaging(const cv::Mat& image, cv::Size size) {
  CV_Assert(image.depth() == CV_8U);
  if (!(size.width < image.cols && size.height < image.rows)) return resize_to(image, size);
  const int channels = image.channels(), span = image.cols * channels;
  const AreaWeights rows = area_weights(image.rows, size.height), cols = area_weights(image.cols, size.width);
  cv::Mat out(size, image.type());
  std::vector<float> line(size_t(span), 0.0f), sums(size_t(size.width * channels));
  for (int y = 0; y < size.height; ++y) {
    // The output row's source rows, averaged: contiguous, so this loop vectorises.
    std::fill(line.begin(), line.end(), 0.0f);
    for (int k = 0; k < rows.taps; ++k) {
      const float w = rows.weight[size_t(y * rows.taps + k)];
      if (w == 0.0f) continue;
      const uint8_t* __restrict from = image.ptr<uint8_t>(rows.first[size_t(y)] + k);
      float* __restrict sum = line.data();
      for (int i = 0; i < span; ++i) sum[i] += w * float(from[i]);
    }
    average_columns(line.data(), cols, channels, size.width, sums.data());
    round_levels(sums.data(), size.width * channels, out.ptr<uint8_t>(y));
  }
  return out;
}

}  // namespace trainer
