// ONNX export: every family's graph runs in OpenCV's DNN module with LibTorch's outputs (fp32,
// 1e-4 relative, at two batch sizes where the batch is dynamic), passes python3-onnx's checker and
// shape inference in every option combination shipped, and what it cannot honour is refused.
#include <catch2/catch.hpp>

#include <functional>

#include "config/settings.h"
#include "families/model_family.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_metadata.h"
#include "onnx/opencv_model.h"
#include "tasks/box_ops.h"
#include "test_helpers.h"
#include "util/error.h"

using namespace trainer;
using namespace trainer::testing;
using trainer::onnx_export::OnnxOptions;

namespace {

struct Family {
  std::string name;
  std::shared_ptr<torch::nn::Module> model;
  onnx_export::ModelGraph graph;
  ModelCard card;
  std::function<torch::Tensor(const torch::Tensor&)>
      reference;  ///< LibTorch's output in the exported layout
  // The outputs are log-probabilities, compared as probabilities: a probability that underflows
  // float's range in the file's softmax has a logarithm no runtime keeps.
  bool log_probabilities = false;
};

// What is compared of a family's output.
torch::Tensor compared(const Family& family, const torch::Tensor& output) {
  return family.log_probabilities ? output.exp() : output;
}

// Norm statistics and affine parameters away from their initial 0/1, so that folding and
// BatchNormalization both compute something.
void randomize_norms(torch::nn::Module& model) {
  torch::NoGradGuard no_grad;
  torch::manual_seed(7);
  for (auto& buffer : model.named_buffers()) {
    if (buffer.key().find("running_mean") != std::string::npos) buffer.value().uniform_(-0.2, 0.2);
    if (buffer.key().find("running_var") != std::string::npos) buffer.value().uniform_(0.5, 1.5);
  }
  for (auto& parameter : model.named_parameters()) {
    if (parameter.value().dim() == 1 && parameter.key().find("bn") != std::string::npos) {
      parameter.value().uniform_(0.5, 1.5);
    }
  }
  model.eval();
}

// A classifier of 5 classes on side x side inputs. A YOLO -cls file gives class probabilities, which
// the runner hands back as their logarithms; a ResNet's gives logits.
Family classifier_family(const std::string& name, int64_t side) {
  LogitsModel model = build_logits_model({name, 3, 5}, TaskKind::classify);
  randomize_norms(*model.module);
  const bool probabilities = name.find("-cls") != std::string::npos;
  auto reference = [model, probabilities](const torch::Tensor& x) {
    return probabilities ? torch::log_softmax(model.forward(x), 1) : model.forward(x);
  };
  return {name, model.module, model.onnx_graph, {"classify", name, {"a", "b", "c", "d", "e"}, 3, side, side},
          reference, probabilities};
}

Family resnet_family() { return classifier_family("resnet18", 32); }

// EasyOCR's default None-VGG-BiLSTM-CTC recognizer, or the one of `ocr`'s stages.
Family crnn_family(OcrSettings ocr = {}, const std::string& name = "crnn") {
  torch::manual_seed(3);
  ocr.output_channel = 32;
  ocr.hidden_size = 16;
  LogitsModel model = build_logits_model({"crnn", 1, 11, NormKind::batch, &ocr}, TaskKind::ocr);
  randomize_norms(*model.module);
  return {name,
          model.module,
          model.onnx_graph,
          {"ocr", "crnn", {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}, 1, 64, 64},
          model.forward};
}

// EasyOCR's None-ResNet-None-CTC: the ResNet feature extractor and no sequence modeling.
Family crnn_resnet_family() {
  OcrSettings ocr;
  ocr.feature_extraction = OcrFeatureExtraction::resnet;
  ocr.sequence_modeling = OcrSequenceModeling::none;
  return crnn_family(ocr, "crnn-resnet");
}

// A YOLO detector of 3 classes on 64 x 96 inputs. The reference is LibTorch's decoded predictions
// in the runner's layout: of an end-to-end head (whose file holds the top-k rows, which OpenCV runs
// up to its predictions), its one-to-one branch's; with one_to_one false (export's end2end=false),
// its one-to-many branch's in the NMS layout.
Family yolo_family(const std::string& name = "yolov8n", bool one_to_one = true) {
  torch::manual_seed(5);
  DetectorModel model = build_detector({name, 3, 3});
  randomize_norms(*model.module);
  const bool end_to_end = model.end2end && one_to_one;
  const onnx_export::ModelGraph graph = [model, one_to_one](onnx_export::GraphBuilder& builder,
                                                            onnx_export::GraphRequest request) {
    request.end2end = one_to_one;
    return model.onnx_graph(builder, request);
  };
  return {one_to_one ? name : name + "-o2m",
          model.module,
          graph,
          {"detect", name, {"circle", "it's", "say \"hi\""}, 3, 64, 96},
          [model, end_to_end](const torch::Tensor& x) {
            std::vector<torch::Tensor> levels = model.forward(x);
            const auto count = static_cast<long>(model.strides.size());
            // An end-to-end head gives its one-to-many levels, then its one-to-one levels.
            const std::vector<torch::Tensor> branch(levels.begin() + (end_to_end ? count : 0),
                                                    levels.begin() + (end_to_end ? 2 * count : count));
            return decode_predictions(branch, model.strides, model.reg_max, BoxFormat::cxcywh);
          }};
}

Family yolo_cls_family() {
  torch::manual_seed(6);
  return classifier_family("yolo11n-cls", 64);
}

// EasyOCR's None-RCNN-BiLSTM-CTC: the gated recurrent convolutions.
Family crnn_rcnn_family() {
  OcrSettings ocr;
  ocr.feature_extraction = OcrFeatureExtraction::rcnn;
  return crnn_family(ocr, "crnn-rcnn");
}

std::vector<Family> families() {
  return {resnet_family(),        crnn_family(),           crnn_resnet_family(), crnn_rcnn_family(),
          yolo_family(),          yolo_family("yolov5nu"), yolo_family("yolo11n"), yolo_family("yolo26n"),
          yolo_family("yolo26n", false), yolo_cls_family()};
}

std::filesystem::path write_onnx(const TempDir& dir, const Family& family,
                                 const OnnxOptions& options, const std::string& tag) {
  const auto path = dir / (family.name + "-" + tag + ".onnx");
  write_text(path, onnx_export::export_onnx(family.graph, family.card, options).bytes);
  return path;
}

double relative_error(const torch::Tensor& actual, const torch::Tensor& expected) {
  REQUIRE(actual.sizes() == expected.sizes());
  return (actual - expected).abs().max().item<double>() / expected.abs().max().item<double>();
}

// The family's reference output with its parameters and buffers rounded to fp16 and back, the
// model's own values restored afterwards.
torch::Tensor rounded_to_half_reference(const Family& family, const torch::Tensor& input) {
  std::vector<torch::Tensor> saved;
  std::vector<torch::Tensor> values;
  for (const auto& parameter : family.model->parameters()) values.push_back(parameter);
  for (const auto& buffer : family.model->buffers()) {
    if (buffer.is_floating_point()) values.push_back(buffer);
  }
  for (torch::Tensor& value : values) {
    saved.push_back(value.clone());
    value.copy_(value.to(torch::kHalf).to(torch::kFloat));
  }
  const torch::Tensor output = family.reference(input);
  for (size_t i = 0; i < values.size(); ++i) values[i].copy_(saved[i]);
  return output;
}

}  // namespace

TEST_CASE("each family's ONNX graph gives LibTorch's outputs in OpenCV DNN", "[onnx][opencv]") {
  torch::NoGradGuard no_grad;
  TempDir dir("onnx-opencv");
  for (const Family& family : families()) {
    for (const bool simplify : {false, true}) {
      for (const bool dynamic : {true, false}) {
        INFO(family.name << (simplify ? " simplify" : "") << (dynamic ? " dynamic" : " batch=2"));
        OnnxOptions options;
        options.simplify = simplify;
        options.dynamic = dynamic;
        options.batch = 2;
        onnx_export::OpenCvModel net(
            write_onnx(dir, family, options, std::to_string(simplify) + std::to_string(dynamic)));
        const std::vector<int64_t> batches =
            dynamic ? std::vector<int64_t>{1, 3} : std::vector<int64_t>{2};
        for (const int64_t batch : batches) {
          INFO("batch " << batch);
          torch::manual_seed(batch);
          const torch::Tensor input =
              torch::rand({batch, family.card.channels, family.card.height, family.card.width});
          const double error = relative_error(compared(family, net.run(input)), compared(family, family.reference(input)));
          CHECK(error < 1e-4);
        }
      }
    }
  }
}

TEST_CASE("each family's fp16 ONNX file gives LibTorch's fp32 outputs within fp16's rounding",
          "[onnx][opencv]") {
  torch::NoGradGuard no_grad;
  TempDir dir("onnx-half");
  OnnxOptions half;
  half.half = true;
  // OpenCV DNN reads fp32 files only: the fp16 files' own values go into fp32 copies of their
  // graphs (the script also fails unless a file is fp16 throughout).
  // One set of models for the files and the references (resnet18's convolutions are not seeded).
  const std::vector<Family> exported = families();
  std::string pairs;
  for (const Family& family : exported) {
    pairs += " " + quoted(write_onnx(dir, family, half, "half").string()) + " " +
             quoted(dir.file(family.name + ".fp32.onnx"));
  }
  run_python("onnx_half_as_float.py", pairs);
  for (const Family& family : exported) {
    INFO(family.name);
    onnx_export::OpenCvModel net(dir / (family.name + ".fp32.onnx"));
    torch::manual_seed(11);
    const torch::Tensor input =
        torch::rand({1, family.card.channels, family.card.height, family.card.width});
    const torch::Tensor expected = compared(family, family.reference(input));
    // What rounding the weights to fp16 costs, measured in LibTorch: the file may be that far off,
    // give or take the ordering of fp32 sums (measured: within 0.2 % of it for each family).
    const double rounding = relative_error(compared(family, rounded_to_half_reference(family, input)), expected);
    const double error = relative_error(compared(family, net.run(input)), expected);
    INFO("fp16 file " << error << ", weights rounded to fp16 in LibTorch " << rounding);
    CHECK(error < 1.5 * rounding + 1e-5);
    CHECK(error < 1e-2);  // fp16 keeps 11 significant bits: a few parts in 10^4 per weight
  }
}

TEST_CASE("the CRNN's ONNX graph reads lines of any width when dynamic", "[onnx][opencv]") {
  torch::NoGradGuard no_grad;
  TempDir dir("onnx-width");
  const Family family = crnn_family();
  OnnxOptions options;
  options.dynamic = true;
  onnx_export::OpenCvModel net(write_onnx(dir, family, options, "dynamic"));
  for (const int64_t width : {64, 160}) {
    INFO("width " << width);
    const torch::Tensor input = torch::rand({2, 1, family.card.height, width});
    CHECK(relative_error(net.run(input), family.reference(input)) < 1e-4);
  }
}

TEST_CASE("exported ONNX files pass python3-onnx's checker and shape inference", "[onnx][python]") {
  TempDir dir("onnx-check");
  std::vector<std::pair<std::string, OnnxOptions>> variants;
  for (const int64_t opset :
       {onnx_export::kMinOpset, onnx_export::kDefaultOpset, int64_t{13}, onnx_export::kMaxOpset}) {
    OnnxOptions options;
    options.opset = opset;
    variants.emplace_back("opset" + std::to_string(opset), options);
  }
  for (const char* tag : {"dynamic", "half", "simplify", "batch4", "all"}) {
    OnnxOptions options;
    const std::string name = tag;
    options.dynamic = name == "dynamic" || name == "all";
    options.half = name == "half" || name == "all";
    options.simplify = name == "simplify" || name == "all";
    options.batch = name == "batch4" ? 4 : 1;
    if (name == "all") options.opset = 17;
    variants.emplace_back(name, options);
  }
  std::string files;
  for (const Family& family : families()) {
    for (const auto& [tag, options] : variants)
      files += " " + quoted(write_onnx(dir, family, options, tag).string());
  }
  OnnxOptions wide;
  wide.imgsz = std::vector<int64_t>{128, 64};
  files += " " + quoted(write_onnx(dir, yolo_family(), wide, "imgsz128x64").string());
  run_python("onnx_check.py", files);
}

TEST_CASE("an end-to-end YOLO's ONNX file ends in Ultralytics' top rows", "[onnx][python]") {
  torch::NoGradGuard no_grad;
  TempDir dir("onnx-top-rows");
  const Family yolo26 = yolo_family("yolo26n");
  for (const int64_t max_det : {7, 300}) {
    INFO("max_det " << max_det);
    const auto path = dir / ("yolo26n-" + std::to_string(max_det) + ".onnx");
    const onnx_export::ModelGraph graph = [&](onnx_export::GraphBuilder& builder, onnx_export::GraphRequest request) {
      request.max_det = max_det;
      return yolo26.graph(builder, request);
    };
    const onnx_export::OnnxFile file = onnx_export::export_onnx(graph, yolo26.card, {});
    write_text(path, file.bytes);
    // 126 anchors at 64 x 96: max_det 300 keeps them all.
    CHECK(std::get<int64_t>(file.output.at(1)) == std::min<int64_t>(max_det, 126));
    torch::manual_seed(max_det);
    const torch::Tensor input = torch::rand({2, 3, 64, 96});
    const torch::Tensor centres = yolo26.reference(input);
    const torch::Tensor corners = torch::cat({xywh_to_xyxy(centres.narrow(1, 0, 4).transpose(1, 2)).transpose(1, 2),
                                              centres.narrow(1, 4, centres.size(1) - 4)},
                                             1)
                                      .contiguous();
    write_text(dir / "predictions.f32",
               std::string(static_cast<const char*>(corners.data_ptr()), corners.nbytes()));
    run_python("onnx_top_rows_check.py", quoted(path.string()) + " " + quoted(dir.file("predictions.f32")) +
                                             " 2 " + std::to_string(corners.size(1)) + " " +
                                             std::to_string(corners.size(2)));
  }
}

TEST_CASE("ONNX export refuses what it cannot honour, naming it", "[onnx]") {
  const Family yolo = yolo_family();
  OnnxOptions options;
  options.imgsz = std::vector<int64_t>{100, 100};
  CHECK_THROWS_WITH(
      onnx_export::export_onnx(yolo.graph, yolo.card, options),
      Catch::Contains("imgsz=100,100") && Catch::Contains("multiples of its stride 32"));
  options = {};
  options.opset = 10;
  CHECK_THROWS_WITH(onnx_export::export_onnx(yolo.graph, yolo.card, options),
                    Catch::Contains("opset=10 is not supported; use 11 to 17"));
  options = {};
  options.batch = 0;
  CHECK_THROWS_WITH(onnx_export::export_onnx(yolo.graph, yolo.card, options),
                    Catch::Contains("batch=0"));
  const LogitsModel grouped =
      build_logits_model({"resnet18", 3, 2, NormKind::group}, TaskKind::classify);
  CHECK_THROWS_WITH(onnx_export::export_onnx(grouped.onnx_graph,
                                             {"classify", "resnet18", {"a", "b"}, 3, 32, 32}, {}),
                    Catch::Contains("norm=gn cannot be exported"));
  // EasyOCR's stages that OpenCV 4.6 cannot run (or that are not written) are named.
  const std::vector<std::pair<std::string, std::function<void(OcrSettings&)>>> refused_stages{
      {"Transformation TPS", [](OcrSettings& ocr) { ocr.transformation = OcrTransformation::tps; }},
      {"Prediction Attn", [](OcrSettings& ocr) { ocr.prediction = OcrPrediction::attn; }}};
  for (const auto& [stage, set] : refused_stages) {
    OcrSettings ocr;
    ocr.img_h = 64;
    ocr.img_w = 64;
    set(ocr);
    const Family recognizer = crnn_family(ocr);
    CHECK_THROWS_WITH(onnx_export::export_onnx(recognizer.graph, recognizer.card, {}),
                      Catch::Contains(stage));
  }
  CHECK(onnx_export::parse_imgsz("640") == std::vector<int64_t>{640, 640});
  CHECK(onnx_export::parse_imgsz("[480, 640]") == std::vector<int64_t>{480, 640});
  CHECK_THROWS_AS(onnx_export::parse_imgsz("640x480"), UserError);
  CHECK_THROWS_AS(onnx_export::parse_imgsz("1,2,3"), UserError);
}

TEST_CASE("an exported file's metadata gives back its card: names, charset, size and normalisation",
          "[onnx]") {
  TempDir dir("onnx-card");
  for (Family family : families()) {
    INFO(family.name);
    const size_t channels = static_cast<size_t>(family.card.channels);
    family.card.normalization = {std::vector<double>(channels, 0.485),
                                 std::vector<double>(channels, 0.229)};
    const auto path = write_onnx(dir, family, {}, "card");
    const std::optional<ModelCard> card =
        onnx_export::card_of_metadata(onnx_export::read_onnx_file_info(path).metadata);
    REQUIRE(card);
    CHECK(card->task == family.card.task);
    CHECK(card->labels == family.card.labels);  // the YOLO names hold quotes of both kinds
    CHECK(card->channels == family.card.channels);
    CHECK(card->height == family.card.height);
    CHECK(card->width == family.card.width);
    CHECK(card->normalization.mean == family.card.normalization.mean);
    CHECK(card->normalization.std == family.card.normalization.std);
  }
  // Ultralytics' own files: no mean and std, which detection does not need; a classifier does.
  std::map<std::string, std::string> metadata{{"task", "detect"},
                                              {"imgsz", "[64, 64]"},
                                              {"channels", "3"},
                                              {"names", R"({0: 'a\'b"c', 1: "it's"})"}};
  const std::optional<ModelCard> detect = onnx_export::card_of_metadata(metadata);
  REQUIRE(detect);
  CHECK(detect->labels == std::vector<std::string>{"a'b\"c", "it's"});
  CHECK(detect->normalization.std == std::vector<double>{1, 1, 1});
  metadata["task"] = "classify";
  CHECK_FALSE(onnx_export::card_of_metadata(metadata));
  metadata["names"] = "{1: 'b'}";
  metadata["task"] = "detect";
  CHECK_THROWS_WITH(onnx_export::card_of_metadata(metadata), Catch::Contains("names={1: 'b'}"));
}
