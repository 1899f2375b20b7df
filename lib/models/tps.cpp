#include "models/tps.h"

#include <torch/nn/functional/vision.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/pooling.h>
#include <torch/torch.h>

#include "models/norm.h"

namespace trainer {
namespace {

// cdist's compute_mode that never takes the matrix-product shortcut (exact, as numpy's norm).
constexpr int64_t kExactDistances = 2;

// RARE's fiducial points, F/2 evenly along x in [-1, 1] on each of two rows: the top row at y
// `top`, the bottom row at y `bottom` (each a value or a ramp from its first to its second).
torch::Tensor fiducial_rows(int64_t fiducials, std::pair<double, double> top,
                            std::pair<double, double> bottom) {
  const int64_t half = fiducials / 2;
  const auto options = torch::TensorOptions().dtype(torch::kDouble);
  const torch::Tensor x = torch::linspace(-1.0, 1.0, half, options);
  const torch::Tensor top_row =
      torch::stack({x, torch::linspace(top.first, top.second, half, options)}, 1);
  const torch::Tensor bottom_row =
      torch::stack({x, torch::linspace(bottom.first, bottom.second, half, options)}, 1);
  return torch::cat({top_row, bottom_row}, 0);  // [F, 2]
}

// r² log r of the distances, the thin-plate spline's radial basis.
torch::Tensor radial_basis(const torch::Tensor& distance) {
  return distance.square() * distance.log();
}

// EasyOCR's _build_inv_delta_C: the (F+3)² TPS system of the output's fiducial points C, inverted.
torch::Tensor inverse_delta_c(const torch::Tensor& C) {
  const int64_t fiducials = C.size(0);
  const auto options = C.options();
  torch::Tensor hat_C = torch::cdist(C, C, 2.0, kExactDistances);
  hat_C.fill_diagonal_(1.0);  // log(1) = 0 on the diagonal, as EasyOCR's fill_diagonal(hat_C, 1)
  hat_C = radial_basis(hat_C);
  const torch::Tensor delta_C = torch::cat(
      {torch::cat({torch::ones({fiducials, 1}, options), C, hat_C}, 1),
       torch::cat({torch::zeros({2, 3}, options), C.t()}, 1),
       torch::cat({torch::zeros({1, 3}, options), torch::ones({1, fiducials}, options)}, 1)},
      0);
  return torch::inverse(delta_C);
}

// EasyOCR's _build_P and _build_P_hat: each output pixel's centre in [-1, 1] (row by row), then
// [1, x, y, r² log(r + eps) to each fiducial point].
torch::Tensor p_hat(const torch::Tensor& C, int64_t height, int64_t width) {
  constexpr double kEps = 1e-6;
  const auto options = C.options();
  const torch::Tensor x =
      (torch::arange(-width, width, 2, options) + 1.0) / static_cast<double>(width);
  const torch::Tensor y =
      (torch::arange(-height, height, 2, options) + 1.0) / static_cast<double>(height);
  const auto grid = torch::meshgrid({y, x}, "ij");
  const torch::Tensor P = torch::stack({grid[1], grid[0]}, 2).reshape({-1, 2});  // [H*W, 2], (x, y)
  const torch::Tensor distance = torch::cdist(P, C, 2.0, kExactDistances);
  const torch::Tensor rbf = distance.square() * (distance + kEps).log();
  return torch::cat({torch::ones({P.size(0), 1}, options), P, rbf}, 1);
}

torch::nn::Conv2d conv3x3(int64_t in, int64_t out) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 3).stride(1).padding(1).bias(false));
}

}  // namespace

LocalizationNetworkImpl::LocalizationNetworkImpl(int64_t fiducials, int64_t in_channels,
                                                 NormKind norm)
    : fiducials(fiducials), in_channels(in_channels), norm(norm) {
  reset();
}

void LocalizationNetworkImpl::reset() {
  // conv.0, .4, .8, .12: the convolutions; .1, .5, .9, .13 their norms.
  conv = torch::nn::Sequential();
  int64_t channels = in_channels;
  for (const int64_t out : {64, 128, 256, 512}) {
    conv->push_back(conv3x3(channels, out));
    conv->push_back(make_norm2d(norm, out));
    conv->push_back(torch::nn::ReLU(torch::nn::ReLUOptions(true)));
    if (out != 512) conv->push_back(torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2).stride(2)));
    channels = out;
  }
  conv->push_back(torch::nn::AdaptiveAvgPool2d(torch::nn::AdaptiveAvgPool2dOptions(1)));
  register_module("conv", conv);
  localization_fc1 = register_module(
      "localization_fc1", torch::nn::Sequential(torch::nn::Linear(512, 256),
                                                torch::nn::ReLU(torch::nn::ReLUOptions(true))));
  localization_fc2 = register_module("localization_fc2", torch::nn::Linear(256, fiducials * 2));
  torch::NoGradGuard no_grad;
  localization_fc2->weight.zero_();
  // RARE's Fig. 6 (a): the top row ramps from y 0 to -1, the bottom row from 1 to 0.
  localization_fc2->bias.copy_(fiducial_rows(fiducials, {0.0, -1.0}, {1.0, 0.0}).reshape({-1}));
}

torch::Tensor LocalizationNetworkImpl::forward(const torch::Tensor& input) {
  const int64_t batch = input.size(0);
  const torch::Tensor features = conv->forward(input).view({batch, -1});
  return localization_fc2(localization_fc1->forward(features)).view({batch, fiducials, 2});
}

GridGeneratorImpl::GridGeneratorImpl(int64_t fiducials, int64_t height, int64_t width)
    : fiducials(fiducials), height(height), width(width) {
  reset();
}

void GridGeneratorImpl::reset() {
  // Built in double, as EasyOCR's numpy builds them, then stored in float as it stores them.
  const torch::Tensor C = fiducial_rows(fiducials, {-1.0, -1.0}, {1.0, 1.0});
  inv_delta_C = register_buffer("inv_delta_C", inverse_delta_c(C).to(torch::kFloat));
  P_hat = register_buffer("P_hat", p_hat(C, height, width).to(torch::kFloat));
}

torch::Tensor GridGeneratorImpl::forward(const torch::Tensor& fiducial_points) {
  const int64_t batch = fiducial_points.size(0);
  const torch::Tensor with_zeros =
      torch::cat({fiducial_points, fiducial_points.new_zeros({batch, 3, 2})}, 1);
  const torch::Tensor T =
      torch::matmul(inv_delta_C.to(fiducial_points.dtype()), with_zeros);  // [B, F+3, 2]
  return torch::matmul(P_hat.to(fiducial_points.dtype()), T).reshape({batch, height, width, 2});
}

TpsSpatialTransformerImpl::TpsSpatialTransformerImpl(int64_t fiducials, int64_t height,
                                                     int64_t width, int64_t in_channels,
                                                     NormKind norm)
    : fiducials(fiducials), height(height), width(width), in_channels(in_channels), norm(norm) {
  reset();
}

void TpsSpatialTransformerImpl::reset() {
  LocalizationNetwork = register_module("LocalizationNetwork",
                                        trainer::LocalizationNetwork(fiducials, in_channels, norm));
  GridGenerator =
      register_module("GridGenerator", trainer::GridGenerator(fiducials, height, width));
}

torch::Tensor TpsSpatialTransformerImpl::forward(const torch::Tensor& input) {
  const torch::Tensor grid = GridGenerator(LocalizationNetwork(input));
  namespace F = torch::nn::functional;
  return F::grid_sample(input, grid.to(input.dtype()),
                        F::GridSampleFuncOptions()
                            .mode(torch::kBilinear)
                            .padding_mode(torch::kBorder)
                            .align_corners(false));
}

}  // namespace trainer
