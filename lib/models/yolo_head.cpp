#include "models/yolo_head.h"

#include <cmath>

#include "models/yolo_blocks.h"

namespace trainer::yolo {
namespace {

// Conv(3x3) -> Conv(3x3) -> Conv2d(1x1, with bias): the shape of both branches.
torch::nn::Sequential branch(int64_t in_channels, int64_t hidden, int64_t out_channels) {
  return torch::nn::Sequential(
      Conv(in_channels, hidden, 3), Conv(hidden, hidden, 3),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(hidden, out_channels, 1)));
}

// Ultralytics' nn.Sequential(DWConv(c1, c1, 3), Conv(c1, c2, 1)) of YOLO11's class branch, its
// children named "0" and "1" as Python's Sequential names them. (LibTorch cannot nest a
// Sequential in a Sequential.)
class DepthwisePairImpl : public torch::nn::Cloneable<DepthwisePairImpl> {
 public:
  DepthwisePairImpl(int64_t in_channels, int64_t out_channels)
      : in_channels(in_channels), out_channels(out_channels) {
    reset();
  }
  void reset() override {
    depthwise = register_module("0", DWConv(in_channels, in_channels, 3));
    pointwise = register_module("1", Conv(in_channels, out_channels));
  }
  torch::Tensor forward(const torch::Tensor& input) { return pointwise(depthwise(input)); }

  int64_t in_channels, out_channels;
  Conv depthwise{nullptr}, pointwise{nullptr};
};
TORCH_MODULE(DepthwisePair);

// YOLO11's class branch: two depthwise-separable pairs -> Conv2d(1x1, with bias).
torch::nn::Sequential depthwise_branch(int64_t in_channels, int64_t hidden, int64_t out_channels) {
  return torch::nn::Sequential(
      DepthwisePair(in_channels, hidden), DepthwisePair(hidden, hidden),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(hidden, out_channels, 1)));
}

torch::Tensor last_bias(const torch::nn::ModuleList& branches, size_t level) {
  const auto sequential = branches->ptr<torch::nn::SequentialImpl>(level);
  return sequential->ptr<torch::nn::Conv2dImpl>(sequential->size() - 1)->bias;
}

void copy_parameters(const torch::nn::Module& from, torch::nn::Module& to) {
  torch::NoGradGuard no_grad;
  const auto source = from.named_parameters();
  for (auto& target : to.named_parameters()) target.value().copy_(source[target.key()]);
}

// Per level, the box branch's and the class branch's outputs concatenated.
std::vector<torch::Tensor> predict_levels(torch::nn::ModuleListImpl& boxes,
                                          torch::nn::ModuleListImpl& scores,
                                          const std::vector<torch::Tensor>& features) {
  std::vector<torch::Tensor> levels;
  for (size_t i = 0; i < features.size(); ++i) {
    levels.push_back(torch::cat({boxes.ptr<torch::nn::SequentialImpl>(i)->forward(features[i]),
                                 scores.ptr<torch::nn::SequentialImpl>(i)->forward(features[i])},
                                1));
  }
  return levels;
}

}  // namespace

DFLImpl::DFLImpl(int64_t bins) : bins(bins) { reset(); }

void DFLImpl::reset() {
  conv =
      register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(bins, 1, 1).bias(false)));
  conv->weight.set_requires_grad(false);
  conv->weight.copy_(torch::arange(bins, conv->weight.options()).view({1, bins, 1, 1}));
}

DetectImpl::DetectImpl(const DetectOptions& options) : options(options) { reset(); }

void DetectImpl::reset() {
  const std::vector<int64_t>& channels = options.channels();
  TORCH_CHECK(!channels.empty() && channels.size() == options.strides().size(),
              "Detect needs one stride per level, got ", channels.size(), " levels and ",
              options.strides().size(), " strides");
  const int64_t box_outputs = 4 * options.reg_max();
  const int64_t classes = options.classes();
  const int64_t box_hidden = std::max({int64_t{16}, channels[0] / 4, box_outputs});
  const int64_t class_hidden = std::max(channels[0], std::min<int64_t>(classes, 100));
  const auto make_branches = [&] {
    torch::nn::ModuleList boxes, scores;
    for (const int64_t in_channels : channels) {
      boxes->push_back(branch(in_channels, box_hidden, box_outputs));
      scores->push_back(options.depthwise_classes()
                            ? depthwise_branch(in_channels, class_hidden, classes)
                            : branch(in_channels, class_hidden, classes));
    }
    initialise_biases(boxes, scores);
    return std::pair{boxes, scores};
  };
  std::tie(cv2, cv3) = make_branches();
  register_module("cv2", cv2);
  register_module("cv3", cv3);
  if (options.reg_max() > 1) dfl = register_module("dfl", DFL(options.reg_max()));
  if (options.end2end()) {
    // Ultralytics deep-copies cv2 and cv3: the one-to-one branch starts with their weights.
    std::tie(one2one_cv2, one2one_cv3) = make_branches();
    copy_parameters(*cv2, *one2one_cv2);
    copy_parameters(*cv3, *one2one_cv3);
    register_module("one2one_cv2", one2one_cv2);
    register_module("one2one_cv3", one2one_cv3);
  }
}

// Ultralytics' bias_init: box logits start flat (every bin equally likely), class logits at a
// prior of about 5 objects per 640x640 image spread over the level's cells, so early training
// is not swamped by the background's BCE.
void DetectImpl::initialise_biases(torch::nn::ModuleList& boxes, torch::nn::ModuleList& scores) {
  torch::NoGradGuard no_grad;
  for (size_t level = 0; level < boxes->size(); ++level) {
    const double cells = std::pow(640.0 / options.strides()[level], 2);
    last_bias(boxes, level).fill_(1.0);
    last_bias(scores, level).fill_(std::log(5.0 / static_cast<double>(options.classes()) / cells));
  }
}

std::vector<torch::Tensor> DetectImpl::forward(const std::vector<torch::Tensor>& features) {
  TORCH_CHECK(features.size() == cv2->size(), "Detect expects ", cv2->size(), " feature maps, got ",
              features.size());
  std::vector<torch::Tensor> levels = predict_levels(*cv2, *cv3, features);
  if (options.end2end()) {
    std::vector<torch::Tensor> detached;
    for (const torch::Tensor& feature : features) detached.push_back(feature.detach());
    for (torch::Tensor& level : predict_levels(*one2one_cv2, *one2one_cv3, detached)) {
      levels.push_back(std::move(level));
    }
  }
  return levels;
}

ClassifyImpl::ClassifyImpl(int64_t in_channels, int64_t classes)
    : in_channels(in_channels), classes(classes) {
  reset();
}

void ClassifyImpl::reset() {
  conv = register_module("conv", Conv(in_channels, kWidth));
  linear = register_module("linear", torch::nn::Linear(kWidth, classes));
}

torch::Tensor ClassifyImpl::forward(const torch::Tensor& features) {
  return linear(conv(features).mean({2, 3}));
}

}  // namespace trainer::yolo
