#include "models/grcnn.h"

#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/pooling.h>

#include "models/norm.h"

namespace trainer {
namespace {

// EasyOCR's GRCL: every layer takes 5 recurrent steps.
constexpr int64_t kGrclIterations = 5;

torch::nn::Conv2d conv(int64_t in, int64_t out, int64_t kernel, int64_t padding, bool bias) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, kernel).stride(1).padding(padding).bias(bias));
}

// Halves the height and keeps the width one column wider: MaxPool2d(2, (2, 1), (0, 1)).
torch::nn::MaxPool2d pool_height() {
  return torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2).stride({2, 1}).padding({0, 1}));
}

torch::nn::MaxPool2d pool_both() {
  return torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2).stride(2));
}

}  // namespace

GrclUnitImpl::GrclUnitImpl(int64_t channels, NormKind norm) : channels(channels), norm(norm) {
  reset();
}

void GrclUnitImpl::reset() {
  BN_gfu = register_norm2d(*this, "BN_gfu", norm, channels);
  BN_grx = register_norm2d(*this, "BN_grx", norm, channels);
  BN_fu = register_norm2d(*this, "BN_fu", norm, channels);
  BN_rx = register_norm2d(*this, "BN_rx", norm, channels);
  BN_Gx = register_norm2d(*this, "BN_Gx", norm, channels);
}

torch::Tensor GrclUnitImpl::forward(const torch::Tensor& wgf_u, const torch::Tensor& wgr_x,
                                    const torch::Tensor& wf_u, const torch::Tensor& wr_x) {
  const torch::Tensor gate = torch::sigmoid(BN_gfu.forward(wgf_u) + BN_grx.forward(wgr_x));
  return torch::relu(BN_fu.forward(wf_u) + BN_Gx.forward(BN_rx.forward(wr_x) * gate));
}

GrclImpl::GrclImpl(int64_t in_channels, int64_t out_channels, int64_t iterations, NormKind norm)
    : in_channels(in_channels), out_channels(out_channels), iterations(iterations), norm(norm) {
  reset();
}

void GrclImpl::reset() {
  wgf_u = register_module("wgf_u", conv(in_channels, out_channels, 1, 0, false));
  wgr_x = register_module("wgr_x", conv(out_channels, out_channels, 1, 0, false));
  wf_u = register_module("wf_u", conv(in_channels, out_channels, 3, 1, false));
  wr_x = register_module("wr_x", conv(out_channels, out_channels, 3, 1, false));
  BN_x_init = register_norm2d(*this, "BN_x_init", norm, out_channels);
  GRCL = torch::nn::ModuleList();
  for (int64_t i = 0; i < iterations; ++i) GRCL->push_back(GrclUnit(out_channels, norm));
  register_module("GRCL", GRCL);
}

torch::Tensor GrclImpl::forward(const torch::Tensor& input) {
  // The input u is the same at every step, so its terms are computed once.
  const torch::Tensor gate_input = wgf_u(input), feed_forward = wf_u(input);
  torch::Tensor x = torch::relu(BN_x_init.forward(feed_forward));
  for (int64_t i = 0; i < iterations; ++i) {
    x = GRCL->ptr<GrclUnitImpl>(static_cast<size_t>(i))
            ->forward(gate_input, wgr_x(x), feed_forward, wr_x(x));
  }
  return x;
}

RcnnFeatureExtractorImpl::RcnnFeatureExtractorImpl(int64_t in_channels, int64_t output_channel,
                                                   NormKind norm)
    : in_channels(in_channels), output_channel(output_channel), norm(norm) {
  reset();
}

void RcnnFeatureExtractorImpl::reset() {
  const int64_t c0 = output_channel / 8, c1 = output_channel / 4, c2 = output_channel / 2,
                c3 = output_channel;
  // The layer order fixes the indices in the state-dict keys (ConvNet.0, .3, .5, .7, .9, .10).
  ConvNet = torch::nn::Sequential();
  ConvNet->push_back(conv(in_channels, c0, 3, 1, true));  // 0
  ConvNet->push_back(torch::nn::ReLU(torch::nn::ReLUOptions(true)));
  ConvNet->push_back(pool_both());
  ConvNet->push_back(Grcl(c0, c0, kGrclIterations, norm));  // 3
  ConvNet->push_back(pool_both());
  ConvNet->push_back(Grcl(c0, c1, kGrclIterations, norm));  // 5
  ConvNet->push_back(pool_height());
  ConvNet->push_back(Grcl(c1, c2, kGrclIterations, norm));  // 7
  ConvNet->push_back(pool_height());
  ConvNet->push_back(conv(c2, c3, 2, 0, false));  // 9
  ConvNet->push_back(make_norm2d(norm, c3));      // 10
  ConvNet->push_back(torch::nn::ReLU(torch::nn::ReLUOptions(true)));
  register_module("ConvNet", ConvNet);
}

}  // namespace trainer
