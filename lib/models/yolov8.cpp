#include "models/yolov8.h"

#include <torch/nn/modules/upsampling.h>

#include <cmath>

#include "models/yolo_blocks.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

using Kind = YOLOv8Impl::LayerKind;

struct LayerSpec {
  Kind kind;
  std::vector<int64_t> from;  ///< -1: the previous layer
  int64_t repeats = 1;        ///< before depth scaling
  int64_t channels = 0;       ///< before width scaling; 0 where the input decides
  bool shortcut = false;
};

// cfg/models/v8/yolov8.yaml. Every Conv of it is a 3x3 stride-2 downsample; head C2fs have no shortcut.
const std::vector<LayerSpec>& architecture() {
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

struct Scale {
  double depth, width;
  int64_t max_channels;
};

// Ultralytics' [depth, width, max_channels] per model size.
const std::vector<std::pair<std::string, Scale>>& scales() {
  static const std::vector<std::pair<std::string, Scale>> table{{"yolov8n", {0.33, 0.25, 1024}},
                                                                {"yolov8s", {0.33, 0.50, 1024}},
                                                                {"yolov8m", {0.67, 0.75, 768}},
                                                                {"yolov8l", {1.00, 1.00, 512}},
                                                                {"yolov8x", {1.00, 1.25, 512}}};
  return table;
}

}  // namespace

YOLOv8Impl::YOLOv8Impl(const YOLOv8Options& options) : options(options) { reset(); }

void YOLOv8Impl::reset() {
  if (options.in_channels() < 1 || options.classes() < 1) {
    throw UserError("YOLOv8 needs in_channels >= 1 and classes >= 1, got " + std::to_string(options.in_channels()) +
                    " and " + std::to_string(options.classes()));
  }
  // parse_model's scaling: make_divisible(min(c, max_channels) * width, 8), and
  // max(round(n * depth), 1) repeats for n > 1 (Python's round: half to even, as nearbyint).
  const auto scaled_channels = [&](int64_t channels) {
    const double scaled = static_cast<double>(std::min(channels, options.max_channels())) * options.width();
    return static_cast<int64_t>(std::ceil(scaled / 8)) * 8;
  };
  const auto scaled_repeats = [&](int64_t repeats) {
    return repeats > 1 ? std::max<int64_t>(static_cast<int64_t>(std::nearbyint(repeats * options.depth())), 1)
                       : repeats;
  };

  const std::vector<LayerSpec>& specs = architecture();
  model = register_module("model", torch::nn::ModuleList());
  layers_.clear();
  keep_.assign(specs.size(), false);
  std::vector<int64_t> out_channels;
  for (size_t i = 0; i < specs.size(); ++i) {
    const LayerSpec& spec = specs[i];
    std::vector<int64_t> in_channels;
    for (const int64_t source : spec.from) {
      if (source >= 0) keep_[static_cast<size_t>(source)] = true;
      in_channels.push_back(i == 0 ? options.in_channels()
                                   : out_channels[source < 0 ? i - 1 : static_cast<size_t>(source)]);
    }
    const int64_t in = in_channels.front();
    int64_t out = in;
    switch (spec.kind) {
      case Kind::conv:
        out = scaled_channels(spec.channels);
        model->push_back(yolo::Conv(in, out, 3, 2));
        break;
      case Kind::c2f:
        out = scaled_channels(spec.channels);
        model->push_back(yolo::C2f(in, out, scaled_repeats(spec.repeats), spec.shortcut));
        break;
      case Kind::sppf:
        out = scaled_channels(spec.channels);
        model->push_back(yolo::SPPF(in, out, 5));
        break;
      case Kind::upsample:
        model->push_back(torch::nn::Upsample(
            torch::nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}).mode(torch::kNearest)));
        break;
      case Kind::concat:
        out = 0;
        for (const int64_t channels : in_channels) out += channels;
        model->push_back(yolo::Concat());
        break;
      case Kind::detect:
        model->push_back(yolo::Detect(yolo::DetectOptions(options.classes(), in_channels)));
        break;
    }
    out_channels.push_back(out);
    layers_.push_back({spec.kind, spec.from});
  }
}

yolo::DetectImpl& YOLOv8Impl::head() const { return *model->ptr<yolo::DetectImpl>(model->size() - 1); }

std::vector<torch::Tensor> YOLOv8Impl::forward(const torch::Tensor& images) {
  TORCH_CHECK(images.dim() == 4 && images.size(1) == options.in_channels(), "YOLOv8 expects [B, ",
              options.in_channels(), ", H, W] images, got ", images.sizes());
  TORCH_CHECK(images.size(2) % 32 == 0 && images.size(3) % 32 == 0,
              "YOLOv8 needs image sides that are multiples of its largest stride 32, got ", images.size(2), "x",
              images.size(3));
  std::vector<torch::Tensor> saved(layers_.size());
  torch::Tensor x = images;
  const auto input = [&](int64_t source) { return source < 0 ? x : saved[static_cast<size_t>(source)]; };
  for (size_t i = 0; i < layers_.size(); ++i) {
    const Layer& layer = layers_[i];
    std::vector<torch::Tensor> inputs;
    for (const int64_t source : layer.from) inputs.push_back(input(source));
    switch (layer.kind) {
      case Kind::conv:
        x = model->ptr<yolo::ConvImpl>(i)->forward(inputs[0]);
        break;
      case Kind::c2f:
        x = model->ptr<yolo::C2fImpl>(i)->forward(inputs[0]);
        break;
      case Kind::sppf:
        x = model->ptr<yolo::SPPFImpl>(i)->forward(inputs[0]);
        break;
      case Kind::upsample:
        x = model->ptr<torch::nn::UpsampleImpl>(i)->forward(inputs[0]);
        break;
      case Kind::concat:
        x = model->ptr<yolo::ConcatImpl>(i)->forward(inputs);
        break;
      case Kind::detect:
        return model->ptr<yolo::DetectImpl>(i)->forward(inputs);
    }
    if (keep_[i]) saved[i] = x;
  }
  TORCH_INTERNAL_ASSERT(false, "YOLOv8 layer list has no Detect head");
}

const std::vector<std::string>& yolov8_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> keys;
    for (const auto& entry : scales()) keys.push_back(entry.first);
    return keys;
  }();
  return names;
}

YOLOv8 make_yolov8(const std::string& name, int64_t in_channels, int64_t classes) {
  const auto found =
      std::find_if(scales().begin(), scales().end(), [&](const auto& entry) { return entry.first == name; });
  if (found == scales().end()) {
    throw UserError("unknown model '" + name + "'" + did_you_mean(name, yolov8_names()) + "; choose one of " +
                    join(yolov8_names(), ", "));
  }
  const Scale& scale = found->second;
  return YOLOv8(YOLOv8Options()
                    .depth(scale.depth)
                    .width(scale.width)
                    .max_channels(scale.max_channels)
                    .in_channels(in_channels)
                    .classes(classes));
}

}  // namespace trainer
