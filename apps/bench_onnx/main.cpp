// Times one image's inference with LibTorch and with the same model exported to ONNX and run by
// OpenCV's DNN module, interleaved in one process (so both see the same machine state), for the
// three families at their usual input sizes. scripts/bench-onnx runs it; docs/benchmarks.md keeps
// the figures.
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>

#include "config/settings.h"
#include "families/model_family.h"
#include "onnx/onnx_export.h"
#include "onnx/opencv_model.h"
#include "util/atomic_file.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Subject {
  std::string name;
  trainer::BuiltModel model;
  trainer::ModelCard card;
  std::function<void(const torch::Tensor&)> forward;
};

std::vector<Subject> subjects(const std::string& only) {
  using trainer::TaskKind;
  trainer::OcrSettings ocr;  // EasyOCR's sizes: 256 and 256
  const trainer::LogitsModel resnet = trainer::build_logits_model({"resnet18", 3, 1000}, TaskKind::classify);
  const trainer::LogitsModel crnn = trainer::build_logits_model({"crnn", 1, 97, trainer::NormKind::batch, &ocr}, TaskKind::ocr);
  const trainer::DetectorModel yolo = trainer::build_detector({"yolov8n", 3, 80});
  std::vector<Subject> all{{"resnet18 224x224",
                            resnet,
                            {"classify", "resnet18", std::vector<std::string>(1000, "c"), 3, 224, 224},
                            resnet.forward},
                           {"crnn 64x600",
                            crnn,
                            {"ocr", "crnn", std::vector<std::string>(96, "c"), 1, 64, 600},
                            crnn.forward},
                           {"yolov8n 640x640",
                            yolo,
                            {"detect", "yolov8n", std::vector<std::string>(80, "c"), 3, 640, 640},
                            yolo.forward}};
  std::vector<Subject> chosen;
  for (auto& subject : all) {
    if (only.empty() || subject.name.rfind(only, 0) == 0) chosen.push_back(subject);
  }
  return chosen;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"LibTorch against OpenCV DNN on the exported ONNX file, per image"};
  int64_t runs = 20, warmup = 3;
  std::string only;
  bool simplify = false;
  app.add_option("--runs", runs, "timed images per runtime")->check(CLI::PositiveNumber);
  app.add_option("--warmup", warmup, "untimed images first");
  app.add_option("--model", only, "resnet18, crnn or yolov8n (default: all three)");
  app.add_flag("--simplify", simplify, "export with the norms folded into the convolutions");
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);
  torch::NoGradGuard no_grad;
  c10::InferenceMode inference;
  const auto file = std::filesystem::temp_directory_path() / ("bench-onnx-" + std::to_string(getpid()) + ".onnx");
  std::printf("%-18s %12s %12s %8s  (median ms per image over %lld runs, batch 1, %d threads)\n", "model", "LibTorch",
              "OpenCV DNN", "ratio", static_cast<long long>(runs), torch::get_num_threads());
  for (Subject& subject : subjects(only)) {
    subject.model.module->eval();
    trainer::onnx_export::OnnxOptions options;
    options.simplify = simplify;
    trainer::write_file_atomically(file,
                                   trainer::onnx_export::export_onnx(subject.model.onnx_graph, subject.card, options).bytes);
    trainer::onnx_export::OpenCvModel deployed(file);  // reads the file again for each new width (OCR)
    const torch::Tensor input = torch::rand({1, subject.card.channels, subject.card.height, subject.card.width});
    std::vector<double> torch_ms, opencv_ms;
    for (int64_t i = 0; i < warmup + runs; ++i) {
      const auto start = Clock::now();
      subject.forward(input);
      const auto middle = Clock::now();
      deployed.run(input);
      const auto end = Clock::now();
      if (i < warmup) continue;
      torch_ms.push_back(std::chrono::duration<double, std::milli>(middle - start).count());
      opencv_ms.push_back(std::chrono::duration<double, std::milli>(end - middle).count());
    }
    const double torch_median = median(torch_ms), opencv_median = median(opencv_ms);
    std::printf("%-18s %12.2f %12.2f %7.2fx\n", subject.name.c_str(), torch_median, opencv_median,
                torch_median / opencv_median);
  }
  std::filesystem::remove(file);
  return 0;
}
