#include "models/yolo.h"

#include <torch/nn/modules/upsampling.h>

#include <cmath>
#include <filesystem>
#include <regex>

#include "models/yolo_attention.h"
#include "models/yolo_blocks.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

using Kind = YoloImpl::LayerKind;

// A row's arguments with parse_model's reading of them: Python literals, `nc` for the class
// count, None for "the default".
class RowArgs {
 public:
  RowArgs(const YoloRow& row, int64_t classes) : row_(row), classes_(classes) {}

  bool given(size_t i) const { return i < row_.args.size() && row_.args[i] != "None"; }
  size_t size() const { return row_.args.size(); }

  int64_t integer(size_t i, int64_t fallback) const {
    if (!given(i)) return fallback;
    if (row_.args[i] == "nc") return classes_;
    const double value = number(i, 0);
    if (value != std::floor(value)) fail(i, "a whole number");
    return static_cast<int64_t>(value);
  }

  double number(size_t i, double fallback) const {
    if (!given(i)) return fallback;
    try {
      size_t used = 0;
      const double value = std::stod(row_.args[i], &used);
      if (used == row_.args[i].size()) return value;
    } catch (const std::exception&) {
    }
    fail(i, "a number");
  }

  bool flag(size_t i, bool fallback) const {
    if (!given(i)) return fallback;
    const std::string text = to_lower(row_.args[i]);
    if (text == "true" || text == "1") return true;
    if (text == "false" || text == "0") return false;
    fail(i, "True or False");
  }

  [[noreturn]] void fail(size_t i, const std::string& expected) const {
    throw UserError(row_.where + ": " + row_.module + "'s argument " + std::to_string(i + 1) +
                    " ('" + row_.args[i] + "') must be " + expected);
  }

 private:
  const YoloRow& row_;
  int64_t classes_;
};

// What parse_model carries from row to row.
struct BuildContext {
  YoloScale scaling;
  char scale = 0;  ///< the scale letter, 0 for none
  int64_t classes;
  int64_t reg_max;
  bool end2end;
  bool legacy_head = true;  ///< no C3k2 so far: Detect's class branch is YOLOv8's
};

// parse_model's widths: make_divisible(min(c, max_channels) * width, 8), except a width equal
// to nc, which is the classes' and kept.
int64_t scaled_width(int64_t channels, const BuildContext& context) {
  if (channels == context.classes) return channels;
  const double scaled =
      static_cast<double>(std::min(channels, context.scaling.max_channels)) * context.scaling.width;
  return static_cast<int64_t>(std::ceil(scaled / 8)) * 8;
}

// max(round(n * depth), 1) for n > 1 (Python's round: half to even, as nearbyint).
int64_t scaled_repeats(int64_t repeats, const BuildContext& context) {
  if (repeats <= 1) return repeats;
  return std::max<int64_t>(static_cast<int64_t>(std::nearbyint(repeats * context.scaling.depth)),
                           1);
}

struct BuiltLayer {
  std::shared_ptr<torch::nn::Module> module;
  Kind kind;
  int64_t out_channels;
  double stride_change = 1;  ///< its output's stride over its (first) input's
};

BuiltLayer conv_layer(const RowArgs& args, int64_t in, int64_t out) {
  const int64_t kernel = args.integer(1, 1);
  const int64_t padding = args.given(3) ? args.integer(3, 0) : yolo::ConvImpl::kAutoPadding;
  const int64_t stride = args.integer(2, 1);
  return {yolo::Conv(in, out, kernel, stride, args.integer(4, 1), args.flag(6, true), padding,
                     args.integer(5, 1))
              .ptr(),
          Kind::conv, out, static_cast<double>(stride)};
}

// C2f [c2, shortcut=False, g, e], C3 [c2, shortcut=True, g, e] and C3k2 [c2, c3k=False, e,
// attn=False, g, shortcut=True], with the depth-scaled repeats inserted as parse_model does.
BuiltLayer csp_layer(const YoloRow& row, const RowArgs& args, int64_t in, int64_t out,
                     BuildContext& context) {
  const int64_t repeats = scaled_repeats(row.repeats, context);
  const size_t groups_at = row.module == "C3k2" ? 4 : 2;
  if (args.integer(groups_at, 1) != 1) args.fail(groups_at, "1 (grouped blocks are not built)");
  if (row.module == "C2f") {
    return {yolo::C2f(in, out, repeats, args.flag(1, false), yolo::C2fInner::bottleneck,
                      args.number(3, 0.5))
                .ptr(),
            Kind::c2f, out};
  }
  if (row.module == "C3") {
    return {yolo::C3(in, out, repeats, args.flag(1, true), 1, args.number(3, 0.5)).ptr(), Kind::c3,
            out};
  }
  context.legacy_head = false;
  // parse_model turns c3k on for every C3k2 at the m, l and x scales.
  const bool c3k = args.flag(1, false) ||
                   (context.scale && std::string("mlx").find(context.scale) != std::string::npos);
  const yolo::C2fInner inner = args.flag(3, false) ? yolo::C2fInner::attention
                               : c3k               ? yolo::C2fInner::c3k
                                                   : yolo::C2fInner::narrow_bottleneck;
  return {yolo::C2f(in, out, repeats, args.flag(5, true), inner, args.number(2, 0.5)).ptr(),
          Kind::c3k2, out};
}

// nn.Upsample [None, scale_factor, "nearest"].
BuiltLayer upsample_layer(const YoloRow& row, const RowArgs& args, int64_t in) {
  if (args.given(0)) args.fail(0, "None (an output size is not built; give the scale factor)");
  if (args.given(2) && row.args[2] != "nearest") args.fail(2, "nearest");
  const double factor = args.number(1, 2);
  return {torch::nn::Upsample(torch::nn::UpsampleOptions()
                                  .scale_factor(std::vector<double>{factor, factor})
                                  .mode(torch::kNearest))
              .ptr(),
          Kind::upsample, in, 1 / factor};
}

// Detect over the levels it reads, at their strides (Ultralytics measures them with a forward pass;
// here they follow from the strided Convs and the Upsamples on the way).
BuiltLayer detect_layer(const std::vector<int64_t>& in_channels, const std::vector<double>& strides,
                        const BuildContext& context) {
  return {yolo::Detect(yolo::DetectOptions(context.classes, in_channels)
                           .strides(strides)
                           .reg_max(context.reg_max)
                           .depthwise_classes(!context.legacy_head)
                           .end2end(context.end2end))
              .ptr(),
          Kind::detect, in_channels.front()};
}

const char* const kKnownModules =
    "Conv, C2f, C3, C3k2, SPPF, C2PSA, nn.Upsample, Concat, Detect and Classify";

// Layer `row` as parse_model builds it from the outputs it reads (`in_channels`, at `in_strides`).
BuiltLayer make_layer(const YoloRow& row, const std::vector<int64_t>& in_channels,
                      const std::vector<double>& in_strides, BuildContext& context) {
  const RowArgs args(row, context.classes);
  const std::string& module = row.module;
  const bool repeated = module == "C2f" || module == "C3" || module == "C3k2" || module == "C2PSA";
  if (!repeated && row.repeats > 1) {
    throw UserError(row.where + ": " + module + " with repeats " + std::to_string(row.repeats) +
                    " (Ultralytics' nn.Sequential of copies) is not built; repeat the row");
  }
  const int64_t in = in_channels.front();
  if (module == "Concat") {
    if (args.integer(0, 1) != 1) args.fail(0, "1 (channels)");
    int64_t out = 0;
    for (const int64_t part : in_channels) out += part;
    return {yolo::Concat().ptr(), Kind::concat, out};
  }
  if (module == "Detect") return detect_layer(in_channels, in_strides, context);
  if (module == "Classify") {
    return {yolo::Classify(in, context.classes).ptr(), Kind::classify, context.classes};
  }
  if (module == "nn.Upsample") return upsample_layer(row, args, in);
  const int64_t out = scaled_width(args.integer(0, in), context);
  if (module == "Conv") return conv_layer(args, in, out);
  if (repeated && module != "C2PSA") return csp_layer(row, args, in, out, context);
  if (module == "SPPF") {
    return {yolo::SPPF(in, out, args.integer(1, 5), args.integer(2, 3), args.flag(3, false),
                       args.size() <= 2)
                .ptr(),
            Kind::sppf, out};
  }
  if (module == "C2PSA") {
    if (in != out)
      throw UserError(row.where + ": C2PSA keeps its width, got " + std::to_string(in) + " -> " +
                      std::to_string(out));
    return {yolo::C2PSA(in, scaled_repeats(row.repeats, context), args.number(1, 0.5)).ptr(),
            Kind::c2psa, out};
  }
  throw UserError(row.where + ": unknown module '" + module + "'; the modules built here are " +
                  kKnownModules);
}

// The scale letter a model is built at: the one asked for, else the file's own, else its first
// (Ultralytics warns and assumes that one).
BuildContext context_for(const YoloOptions& options) {
  const YoloDefinition& definition = *options.definition();
  BuildContext context{definition.unscaled, 0, options.classes(), definition.reg_max,
                       definition.end2end};
  if (definition.scales.empty()) return context;
  std::string scale = options.scale().empty() ? definition.scale : options.scale();
  if (scale.empty()) scale = std::string(1, definition.scales.front().first);
  std::vector<std::string> letters;
  for (const auto& [letter, scaling] : definition.scales) {
    letters.emplace_back(1, letter);
    if (scale.size() == 1 && letter == scale[0]) {
      context.scaling = scaling;
      context.scale = letter;
    }
  }
  if (!context.scale) {
    throw UserError(definition.source + " has no scale '" + scale + "'; its scales are " +
                    join(letters, ", "));
  }
  return context;
}

}  // namespace

YoloImpl::YoloImpl(const YoloOptions& options) : options(options) { reset(); }

void YoloImpl::reset() {
  if (options.in_channels() < 1 || options.classes() < 1) {
    throw UserError("YOLO needs in_channels >= 1 and classes >= 1, got " +
                    std::to_string(options.in_channels()) + " and " +
                    std::to_string(options.classes()));
  }
  const YoloDefinition& definition = *options.definition();
  BuildContext context = context_for(options);
  model = register_module("model", torch::nn::ModuleList());
  layers_.clear();
  keep_.assign(definition.rows.size(), false);
  std::vector<int64_t> out_channels;
  std::vector<double> out_strides;  ///< input pixels per output cell
  for (size_t i = 0; i < definition.rows.size(); ++i) {
    const YoloRow& row = definition.rows[i];
    Layer layer{Kind::conv, {}};
    std::vector<int64_t> in_channels;
    std::vector<double> in_strides;
    for (int64_t source : row.from) {
      // Python's negative indices count from the end of the layers built so far.
      if (source < -1) source += static_cast<int64_t>(i);
      if (source >= static_cast<int64_t>(i) || (source < 0 && source != -1) ||
          (i == 0 && source != -1)) {
        throw UserError(row.where + ": from " + std::to_string(source) + " names no earlier layer");
      }
      if (source >= 0) keep_[static_cast<size_t>(source)] = true;
      layer.from.push_back(source);
      const size_t read = source < 0 ? i - 1 : static_cast<size_t>(source);
      in_channels.push_back(i == 0 ? options.in_channels() : out_channels[read]);
      in_strides.push_back(i == 0 ? 1.0 : out_strides[read]);
    }
    BuiltLayer built = make_layer(row, in_channels, in_strides, context);
    layer.kind = built.kind;
    const bool head = built.kind == Kind::detect || built.kind == Kind::classify;
    if (head != (i + 1 == definition.rows.size())) {
      throw UserError(row.where +
                      ": the last layer, and only it, is the head (Detect or Classify)");
    }
    model->push_back(built.module);
    out_channels.push_back(built.out_channels);
    out_strides.push_back(in_strides.front() * built.stride_change);
    layers_.push_back(std::move(layer));
  }
}

yolo::DetectImpl& YoloImpl::head() const {
  TORCH_CHECK(detects(), "a YOLO classification model has no Detect head");
  return *model->ptr<yolo::DetectImpl>(model->size() - 1);
}

std::vector<torch::Tensor> YoloImpl::forward(const torch::Tensor& images) {
  TORCH_CHECK(images.dim() == 4 && images.size(1) == options.in_channels(), "YOLO expects [B, ",
              options.in_channels(), ", H, W] images, got ", images.sizes());
  const int64_t largest = detects() ? static_cast<int64_t>(strides().back()) : 1;
  TORCH_CHECK(images.size(2) % largest == 0 && images.size(3) % largest == 0,
              "YOLO needs image sides that are multiples of its largest stride ", largest, ", got ",
              images.size(2), "x", images.size(3));
  std::vector<torch::Tensor> saved(layers_.size());
  torch::Tensor x = images;
  for (size_t i = 0; i < layers_.size(); ++i) {
    const Layer& layer = layers_[i];
    std::vector<torch::Tensor> inputs;
    for (const int64_t source : layer.from) {
      inputs.push_back(source < 0 ? x : saved[static_cast<size_t>(source)]);
    }
    switch (layer.kind) {
      case Kind::conv:
        x = model->ptr<yolo::ConvImpl>(i)->forward(inputs[0]);
        break;
      case Kind::c2f:
      case Kind::c3k2:
        x = model->ptr<yolo::C2fImpl>(i)->forward(inputs[0]);
        break;
      case Kind::c3:
        x = model->ptr<yolo::C3Impl>(i)->forward(inputs[0]);
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
    std::vector<std::string> all;
    for (const std::string& stem : builtin_yolo_definitions()) {
      const size_t dash = stem.find('-');
      const std::string generation = stem.substr(0, dash);
      const std::string suffix = dash == std::string::npos ? "" : stem.substr(dash);
      for (const auto& [letter, scaling] : builtin_yolo_definition(stem)->scales) {
        all.push_back(generation + letter + (generation == "yolov5" ? "u" : "") + suffix);
      }
    }
    return all;
  }();
  return names;
}

Yolo make_yolo(std::shared_ptr<const YoloDefinition> definition, std::string scale,
               int64_t in_channels, int64_t classes) {
  return Yolo(YoloOptions(std::move(definition))
                  .scale(std::move(scale))
                  .in_channels(in_channels)
                  .classes(classes));
}

Yolo make_yolo(const std::string& name, int64_t in_channels, int64_t classes,
               const std::string& definition) {
  if (names_definition_file(name)) {
    // Ultralytics' guess_model_scale: the letter after the generation in the file's name.
    const std::string stem = std::filesystem::path(name).stem().string();
    std::smatch letter;
    static const std::regex scale_in_name(R"(yolo(?:e-)?v?\d+([nslmx]))");
    const std::string scale =
        std::regex_search(stem, letter, scale_in_name) ? letter[1].str() : std::string();
    return make_yolo(std::make_shared<const YoloDefinition>(definition.empty()
                                                                ? read_yolo_definition(name)
                                                                : parse_yolo_definition(definition, name)),
                     scale, in_channels, classes);
  }
  const YoloName parsed = parse_yolo_name(name);
  const auto& stems = builtin_yolo_definitions();
  if (parsed.stem.empty() || std::find(stems.begin(), stems.end(), parsed.stem) == stems.end()) {
    throw UserError("unknown model '" + name + "'" + did_you_mean(name, yolo_model_names()) +
                    "; choose one of " + join(yolo_model_names(), ", "));
  }
  return make_yolo(builtin_yolo_definition(parsed.stem), parsed.scale, in_channels, classes);
}

}  // namespace trainer
