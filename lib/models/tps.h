// EasyOCR's Transformation "TPS" (trainer/modules/transformation.py, RARE's thin-plate-spline
// spatial transformer): a small CNN predicts F fiducial points on the input line and the line is
// resampled onto a fixed imgH x imgW grid that maps them to the edges of the output. EasyOCR's
// module names (`LocalizationNetwork.conv.0`, `GridGenerator.P_hat` …) so its weights load.
#pragma once
#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "config/setting_types.h"

namespace trainer {

// I (the input) -> C' [B, F, 2], the fiducial points in [-1, 1] coordinates, F/2 along the top
// edge and F/2 along the bottom; starts at RARE's initial points (fc2: zero weights, their bias).
class LocalizationNetworkImpl : public torch::nn::Cloneable<LocalizationNetworkImpl> {
 public:
  LocalizationNetworkImpl(int64_t fiducials, int64_t in_channels, NormKind norm);
  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  int64_t fiducials, in_channels;
  NormKind norm;
  torch::nn::Sequential conv{nullptr}, localization_fc1{nullptr};
  torch::nn::Linear localization_fc2{nullptr};
};
TORCH_MODULE(LocalizationNetwork);

// The fixed part of the transform: inv_delta_C [F+3, F+3] (the TPS system of the output's own
// fiducial points, inverted) and P_hat [H*W, F+3] (each output pixel's basis). EasyOCR registers
// both as buffers, so they are in its state dicts and ours.
class GridGeneratorImpl : public torch::nn::Cloneable<GridGeneratorImpl> {
 public:
  GridGeneratorImpl(int64_t fiducials, int64_t height, int64_t width);
  void reset() override;
  // C' [B, F, 2] -> the sampling grid P' [B, H, W, 2] of grid_sample.
  torch::Tensor forward(const torch::Tensor& fiducial_points);

  int64_t fiducials, height, width;
  torch::Tensor inv_delta_C, P_hat;
};
TORCH_MODULE(GridGenerator);

class TpsSpatialTransformerImpl : public torch::nn::Cloneable<TpsSpatialTransformerImpl> {
 public:
  TpsSpatialTransformerImpl(int64_t fiducials, int64_t height, int64_t width, int64_t in_channels,
                            NormKind norm);
  void reset() override;
  // [B, C, h, w] (any size) -> the rectified lines [B, C, height, width].
  torch::Tensor forward(const torch::Tensor& input);

  int64_t fiducials, height, width, in_channels;
  NormKind norm;
  trainer::LocalizationNetwork LocalizationNetwork{nullptr};
  trainer::GridGenerator GridGenerator{nullptr};
};
TORCH_MODULE(TpsSpatialTransformer);

}  // namespace trainer
