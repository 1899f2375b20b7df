#include "models/yolo.h"

#include <torch/nn/modules/upsampling.h>

#include <cmath>

#include "models/yolo_attention.h"
#include "models/yolo_blocks.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

using Kind = YoloImpl::LayerKind;

struct LayerSpec {
  Kind kind;
  std::vector<int64_t> from;  ///< -1: the previous layer
  int64_t repeats = 1;        ///< before depth scaling
  int64_t channels = 0;       ///< before width scaling; 0 where the input decides
  bool shortcut = false;
  bool c3k = false;        ///< C3k2: C3k inner blocks at every scale
  double expansion = 0.5;  ///< C3k2: hidden channels per output channel
};

// cfg/models/v8/yolov8.yaml. Every Conv of it is a 3x3 stride-2 downsample; head C2fs have no
// shortcut.
const std::vector<LayerSpec>& yolov8_layers() {
  static const std::vector<LayerSpec> layers{
      {Kind::conv, {-1}, 1, 64},         // 0  P1/2
      {Kind::conv, {-1}, 1, 128},        // 1  P2/4
      {Kind::c2f, {-1}, 3, 128, true},   // 2
      {Kind::conv, {-1}, 1, 256},        // 3  P3/8
      {Kind::c2f, {-1}, 6, 256, true},   // 4
      {Kind::conv, {-1}, 1, 512},        // 5  P4/16
      {Kind::c2f, {-1}, 6, 512, true},   // 6
      {Kind::conv, {-1}, 1, 1024},       // 7  P5/32
      {Kind::c2f, {-1}, 3, 1024, true},  // 8
      {Kind::sppf, {-1}, 1, 1024},       // 9
      {Kind::upsample, {-1}},            // 10
      {Kind::concat, {-1, 6}},           // 11 with backbone P4
      {Kind::c2f, {-1}, 3, 512},         // 12
      {Kind::upsample, {-1}},            // 13
      {Kind::concat, {-1, 4}},           // 14 with backbone P3
      {Kind::c2f, {-1}, 3, 256},         // 15 P3/8 output
      {Kind::conv, {-1}, 1, 256},        // 16
      {Kind::concat, {-1, 12}},          // 17 with head P4
      {Kind::c2f, {-1}, 3, 512},         // 18 P4/16 output
      {Kind::conv, {-1}, 1, 512},        // 19
      {Kind::concat, {-1, 9}},           // 20 with head P5
      {Kind::c2f, {-1}, 3, 1024},        // 21 P5/32 output
      {Kind::detect, {15, 18, 21}},      // 22
  };
  return layers;
}

// cfg/models/11/yolo11.yaml. C3k2's shortcut is its Python default (True) everywhere.
const std::vector<LayerSpec>& yolo11_layers() {
  static const std::vector<LayerSpec> layers{
      {Kind::conv, {-1}, 1, 64},                      // 0  P1/2
      {Kind::conv, {-1}, 1, 128},                     // 1  P2/4
      {Kind::c3k2, {-1}, 2, 256, true, false, 0.25},  // 2
      {Kind::conv, {-1}, 1, 256},                     // 3  P3/8
      {Kind::c3k2, {-1}, 2, 512, true, false, 0.25},  // 4
      {Kind::conv, {-1}, 1, 512},                     // 5  P4/16
      {Kind::c3k2, {-1}, 2, 512, true, true},         // 6
      {Kind::conv, {-1}, 1, 1024},                    // 7  P5/32
      {Kind::c3k2, {-1}, 2, 1024, true, true},        // 8
      {Kind::sppf, {-1}, 1, 1024},                    // 9
      {Kind::c2psa, {-1}, 2, 1024},                   // 10
      {Kind::upsample, {-1}},                         // 11
      {Kind::concat, {-1, 6}},                        // 12 with backbone P4
      {Kind::c3k2, {-1}, 2, 512, true},               // 13
      {Kind::upsample, {-1}},                         // 14
      {Kind::concat, {-1, 4}},                        // 15 with backbone P3
      {Kind::c3k2, {-1}, 2, 256, true},               // 16 P3/8 output
      {Kind::conv, {-1}, 1, 256},                     // 17
      {Kind::concat, {-1, 13}},                       // 18 with head P4
      {Kind::c3k2, {-1}, 2, 512, true},               // 19 P4/16 output
      {Kind::conv, {-1}, 1, 512},                     // 20
      {Kind::concat, {-1, 10}},                       // 21 with head P5
      {Kind::c3k2, {-1}, 2, 1024, true, true},        // 22 P5/32 output
      {Kind::detect, {16, 19, 22}},                   // 23
  };
  return layers;
}

// cfg/models/v8/yolov8-cls.yaml: YOLOv8's backbone without SPPF, and a Classify head.
const std::vector<LayerSpec>& yolov8_cls_layers() {
  static const std::vector<LayerSpec> layers = [] {
    std::vector<LayerSpec> backbone(yolov8_layers().begin(), yolov8_layers().begin() + 9);
    backbone.push_back({Kind::classify, {-1}});  // 9
    return backbone;
  }();
  return layers;
}

// cfg/models/11/yolo11-cls.yaml: YOLO11's backbone with C2PSA in SPPF's place, and a Classify head.
const std::vector<LayerSpec>& yolo11_cls_layers() {
  static const std::vector<LayerSpec> layers = [] {
    std::vector<LayerSpec> backbone(yolo11_layers().begin(), yolo11_layers().begin() + 9);
    backbone.push_back(yolo11_layers()[10]);     // 9  C2PSA
    backbone.push_back({Kind::classify, {-1}});  // 10
    return backbone;
  }();
  return layers;
}

const std::vector<LayerSpec>& architecture(YoloGeneration generation, YoloHead head) {
  if (head == YoloHead::classify)
    return generation == YoloGeneration::v11 ? yolo11_cls_layers() : yolov8_cls_layers();
  return generation == YoloGeneration::v11 ? yolo11_layers() : yolov8_layers();
}

struct Scale {
  YoloGeneration generation;
  YoloHead head;
  double depth, width;
  int64_t max_channels;
};

// Ultralytics' [depth, width, max_channels] per model (the `scales` of each yaml).
const std::vector<std::pair<std::string, Scale>>& scales() {
  using G = YoloGeneration;
  constexpr YoloHead det = YoloHead::detect, cls = YoloHead::classify;
  static const std::vector<std::pair<std::string, Scale>> table{
      {"yolov8n", {G::v8, det, 0.33, 0.25, 1024}},
      {"yolov8s", {G::v8, det, 0.33, 0.50, 1024}},
      {"yolov8m", {G::v8, det, 0.67, 0.75, 768}},
      {"yolov8l", {G::v8, det, 1.00, 1.00, 512}},
      {"yolov8x", {G::v8, det, 1.00, 1.25, 512}},
      {"yolo11n", {G::v11, det, 0.50, 0.25, 1024}},
      {"yolo11s", {G::v11, det, 0.50, 0.50, 1024}},
      {"yolo11m", {G::v11, det, 0.50, 1.00, 512}},
      {"yolo11l", {G::v11, det, 1.00, 1.00, 512}},
      {"yolo11x", {G::v11, det, 1.00, 1.50, 512}},
      {"yolov8n-cls", {G::v8, cls, 0.33, 0.25, 1024}},
      {"yolov8s-cls", {G::v8, cls, 0.33, 0.50, 1024}},
      {"yolov8m-cls", {G::v8, cls, 0.67, 0.75, 1024}},
      {"yolov8l-cls", {G::v8, cls, 1.00, 1.00, 1024}},
      {"yolov8x-cls", {G::v8, cls, 1.00, 1.25, 1024}},
      {"yolo11n-cls", {G::v11, cls, 0.50, 0.25, 1024}},
      {"yolo11s-cls", {G::v11, cls, 0.50, 0.50, 1024}},
      {"yolo11m-cls", {G::v11, cls, 0.50, 1.00, 512}},
      {"yolo11l-cls", {G::v11, cls, 1.00, 1.00, 512}},
      {"yolo11x-cls", {G::v11, cls, 1.00, 1.50, 512}}};
  return table;
}

// Layer `spec` as parse_model builds it from the outputs it reads (`in_channels`); `out` is set
// to its output channels.
std::shared_ptr<torch::nn::Module> make_layer(const YoloOptions& options, const LayerSpec& spec,
                                              const std::vector<int64_t>& in_channels,
                                              int64_t& out) {
  // parse_model's scaling: make_divisible(min(c, max_channels) * width, 8), and
  // max(round(n * depth), 1) repeats for n > 1 (Python's round: half to even, as nearbyint).
  const double scaled =
      static_cast<double>(std::min(spec.channels, options.max_channels())) * options.width();
  const int64_t channels = static_cast<int64_t>(std::ceil(scaled / 8)) * 8;
  const int64_t repeats =
      spec.repeats > 1
          ? std::max<int64_t>(static_cast<int64_t>(std::nearbyint(spec.repeats * options.depth())),
                              1)
          : spec.repeats;
  const int64_t in = in_channels.front();
  out = spec.kind == Kind::upsample || spec.kind == Kind::detect ? in
        : spec.kind == Kind::classify                            ? options.classes()
                                                                 : channels;
  switch (spec.kind) {
    case Kind::conv:
      return yolo::Conv(in, out, 3, 2).ptr();
    case Kind::c2f:
      return yolo::C2f(in, out, repeats, spec.shortcut).ptr();
    case Kind::c3k2: {
      const bool c3k = spec.c3k || options.c3k_everywhere();
      return yolo::C2f(in, out, repeats, spec.shortcut,
                       c3k ? yolo::C2fInner::c3k : yolo::C2fInner::narrow_bottleneck,
                       spec.expansion)
          .ptr();
    }
    case Kind::sppf:
      return yolo::SPPF(in, out, 5).ptr();
    case Kind::c2psa:
      TORCH_CHECK(in == out, "C2PSA keeps its width, got ", in, " -> ", out);
      return yolo::C2PSA(in, repeats).ptr();
    case Kind::upsample:
      return torch::nn::Upsample(torch::nn::UpsampleOptions()
                                     .scale_factor(std::vector<double>{2, 2})
                                     .mode(torch::kNearest))
          .ptr();
    case Kind::concat:
      out = 0;
      for (const int64_t part : in_channels) out += part;
      return yolo::Concat().ptr();
    case Kind::classify:
      return yolo::Classify(in, options.classes()).ptr();
    case Kind::detect:
      return yolo::Detect(yolo::DetectOptions(options.classes(), in_channels)
                              .depthwise_classes(options.generation() == YoloGeneration::v11))
          .ptr();
  }
  TORCH_INTERNAL_ASSERT(false, "unknown YOLO layer kind");
}

}  // namespace

YoloImpl::YoloImpl(const YoloOptions& options) : options(options) { reset(); }

void YoloImpl::reset() {
  if (options.in_channels() < 1 || options.classes() < 1) {
    throw UserError("YOLO needs in_channels >= 1 and classes >= 1, got " +
                    std::to_string(options.in_channels()) + " and " +
                    std::to_string(options.classes()));
  }
  const std::vector<LayerSpec>& specs = architecture(options.generation(), options.head());
  model = register_module("model", torch::nn::ModuleList());
  layers_.clear();
  keep_.assign(specs.size(), false);
  std::vector<int64_t> out_channels;
  for (size_t i = 0; i < specs.size(); ++i) {
    const LayerSpec& spec = specs[i];
    std::vector<int64_t> in_channels;
    for (const int64_t source : spec.from) {
      if (source >= 0) keep_[static_cast<size_t>(source)] = true;
      in_channels.push_back(i == 0
                                ? options.in_channels()
                                : out_channels[source < 0 ? i - 1 : static_cast<size_t>(source)]);
    }
    int64_t out = 0;
    model->push_back(make_layer(options, spec, in_channels, out));
    out_channels.push_back(out);
    layers_.push_back({spec.kind, spec.from});
  }
}

yolo::DetectImpl& YoloImpl::head() const {
  TORCH_CHECK(options.head() == YoloHead::detect, "a YOLO classification model has no Detect head");
  return *model->ptr<yolo::DetectImpl>(model->size() - 1);
}

std::vector<torch::Tensor> YoloImpl::forward(const torch::Tensor& images) {
  TORCH_CHECK(images.dim() == 4 && images.size(1) == options.in_channels(), "YOLO expects [B, ",
              options.in_channels(), ", H, W] images, got ", images.sizes());
  TORCH_CHECK(options.head() == YoloHead::classify ||
                  (images.size(2) % 32 == 0 && images.size(3) % 32 == 0),
              "YOLO needs image sides that are multiples of its largest stride 32, got ",
              images.size(2), "x", images.size(3));
  std::vector<torch::Tensor> saved(layers_.size());
  torch::Tensor x = images;
  const auto input = [&](int64_t source) {
    return source < 0 ? x : saved[static_cast<size_t>(source)];
  };
  for (size_t i = 0; i < layers_.size(); ++i) {
    const Layer& layer = layers_[i];
    std::vector<torch::Tensor> inputs;
    for (const int64_t source : layer.from) inputs.push_back(input(source));
    switch (layer.kind) {
      case Kind::conv:
        x = model->ptr<yolo::ConvImpl>(i)->forward(inputs[0]);
        break;
      case Kind::c2f:
      case Kind::c3k2:
        x = model->ptr<yolo::C2fImpl>(i)->forward(inputs[0]);
        break;
      case Kind::sppf:
        x = model->ptr<yolo::SPPFImpl>(i)->forward(inputs[0]);
        break;
      case Kind::c2psa:
        x = model->ptr<yolo::C2PSAImpl>(i)->forward(inputs[0]);
        break;
      case Kind::upsample:
        x = model->ptr<torch::nn::UpsampleImpl>(i)->forward(inputs[0]);
        break;
      case Kind::concat:
        x = model->ptr<yolo::ConcatImpl>(i)->forward(inputs);
        break;
      case Kind::detect:
        return model->ptr<yolo::DetectImpl>(i)->forward(inputs);
      case Kind::classify:
        return {model->ptr<yolo::ClassifyImpl>(i)->forward(inputs[0])};
    }
    if (keep_[i]) saved[i] = x;
  }
  TORCH_INTERNAL_ASSERT(false, "YOLO layer list has no head");
}

const std::vector<std::string>& yolo_model_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> keys;
    for (const auto& entry : scales()) keys.push_back(entry.first);
    return keys;
  }();
  return names;
}

Yolo make_yolo(const std::string& name, int64_t in_channels, int64_t classes) {
  const auto found = std::find_if(scales().begin(), scales().end(),
                                  [&](const auto& entry) { return entry.first == name; });
  if (found == scales().end()) {
    throw UserError("unknown model '" + name + "'" + did_you_mean(name, yolo_model_names()) +
                    "; choose one of " + join(yolo_model_names(), ", "));
  }
  const Scale& scale = found->second;
  const char size = name.substr(0, name.find('-')).back();  // yolo11m-cls: m
  return Yolo(YoloOptions()
                  .generation(scale.generation)
                  .head(scale.head)
                  .c3k_everywhere(scale.generation == YoloGeneration::v11 &&
                                  (size == 'm' || size == 'l' || size == 'x'))
                  .depth(scale.depth)
                  .width(scale.width)
                  .max_channels(scale.max_channels)
                  .in_channels(in_channels)
                  .classes(classes));
}

}  // namespace trainer
