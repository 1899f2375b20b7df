// EasyOCR's FeatureExtraction "RCNN" (trainer/modules/feature_extraction.py, GRCNN's gated
// recurrent convolutions), with EasyOCR's names (`ConvNet.3.wgf_u`, `ConvNet.3.GRCL.0.BN_gfu` …).
// Height /32 (then a 2x2 convolution takes one row), width /4 + 1 time steps.
#pragma once
#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/any.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "config/setting_types.h"

namespace trainer {

// One time step of a GRCL: the gate G = σ(BN(wgf_u) + BN(wgr_x)) and x = relu(BN(wf_u) +
// BN(BN(wr_x) · G)).
class GrclUnitImpl : public torch::nn::Cloneable<GrclUnitImpl> {
 public:
  GrclUnitImpl(int64_t channels, NormKind norm);
  void reset() override;
  torch::Tensor forward(const torch::Tensor& wgf_u, const torch::Tensor& wgr_x,
                        const torch::Tensor& wf_u, const torch::Tensor& wr_x);

  int64_t channels;
  NormKind norm;
  torch::nn::AnyModule BN_gfu, BN_grx, BN_fu, BN_rx, BN_Gx;
};
TORCH_MODULE(GrclUnit);

// A gated recurrent convolution layer: the feed-forward terms of the input once, then
// `iterations` recurrent steps, each with its own norms (GRCL.<step>).
class GrclImpl : public torch::nn::Cloneable<GrclImpl> {
 public:
  GrclImpl(int64_t in_channels, int64_t out_channels, int64_t iterations, NormKind norm);
  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  int64_t in_channels, out_channels, iterations;
  NormKind norm;
  torch::nn::Conv2d wgf_u{nullptr}, wgr_x{nullptr}, wf_u{nullptr}, wr_x{nullptr};
  torch::nn::AnyModule BN_x_init;
  torch::nn::ModuleList GRCL{nullptr};
};
TORCH_MODULE(Grcl);

// `FeatureExtraction.ConvNet`: a convolution, three GRCLs of 5 steps between max pools, a 2x2
// convolution; widths output_channel / 8, / 8, / 4, / 2, x1.
class RcnnFeatureExtractorImpl : public torch::nn::Cloneable<RcnnFeatureExtractorImpl> {
 public:
  RcnnFeatureExtractorImpl(int64_t in_channels, int64_t output_channel, NormKind norm);
  void reset() override;
  torch::Tensor forward(const torch::Tensor& input) { return ConvNet->forward(input); }

  int64_t in_channels, output_channel;
  NormKind norm;
  torch::nn::Sequential ConvNet{nullptr};
};
TORCH_MODULE(RcnnFeatureExtractor);

}  // namespace trainer
