// EasyOCR's other recognizers (TPS, RCNN, ResNet, no sequence modeling, Attn) must be EasyOCR's:
// the same keys in the same order, the same shapes and buffers, the same outputs from the same
// weights, and its parameter counts; the Attn decoder's text is EasyOCR's AttnLabelConverter's.
#include <catch2/catch.hpp>

#include <sstream>

#include "data/ocr/charset.h"
#include "io/pretrained.h"
#include "io/state_dict.h"
#include "io/tensor_archive.h"
#include "models/crnn.h"
#include "tasks/attn_text.h"
#include "easyocr_reference.h"
#include "test_helpers.h"

using namespace trainer;

namespace {

const testing::PythonOutput& easyocr_reference() {
  static const testing::PythonOutput fixture("crnn_fixture.py");
  return fixture;
}

// "TPS-ResNet-BiLSTM-Attn" as EasyOCR's configs name the stages.
CrnnOptions stage_options(const std::string& stages) {
  std::vector<std::string> stage;
  std::istringstream names(stages);
  for (std::string name; std::getline(names, name, '-');) stage.push_back(name);
  REQUIRE(stage.size() == 4);
  const auto feature = stage[1] == "VGG"    ? OcrFeatureExtraction::vgg
                       : stage[1] == "RCNN" ? OcrFeatureExtraction::rcnn
                                            : OcrFeatureExtraction::resnet;
  return CrnnOptions()
      .transformation(stage[0] == "TPS" ? OcrTransformation::tps : OcrTransformation::none)
      .feature_extraction(feature)
      .sequence_modeling(stage[2] == "BiLSTM" ? OcrSequenceModeling::bilstm
                                              : OcrSequenceModeling::none)
      .prediction(stage[3] == "Attn" ? OcrPrediction::attn : OcrPrediction::ctc)
      .img_h(32)
      .img_w(100);
}

// crnn_fixture.py's small size of each recognizer.
Crnn small_recognizer(const std::string& stages) {
  return Crnn(stage_options(stages)
                  .output_channel(64)
                  .hidden_size(32)
                  .classes(12)
                  .num_fiducial(8)
                  .max_length(6));
}

double max_abs_difference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>();
}

}  // namespace

TEST_CASE("EasyOCR's other recognizers have its keys, buffers, parameter counts and outputs",
          "[models][ocr]") {
  const auto stages = GENERATE(as<std::string>{}, "TPS-ResNet-BiLSTM-Attn", "None-RCNN-None-CTC",
                               "None-ResNet-None-CTC", "TPS-VGG-BiLSTM-CTC", "None-VGG-None-Attn");
  INFO(stages);
  const c10::impl::GenericDict reference =
      read_archive(easyocr_reference().file(stages + ".pt")).toGenericDict();
  Crnn model = small_recognizer(stages);
  const auto weights = testing::check_easyocr_layout(*model, reference);
  // EasyOCR's full size: output_channel 512, hidden_size 256, 96 characters, 20 fiducial points.
  const bool attn = stages.find("Attn") != std::string::npos;
  Crnn full(stage_options(stages).output_channel(512).hidden_size(256).classes(attn ? 98 : 97));
  CHECK(testing::parameter_count(*full) == reference.at("parameters").toInt());

  load_state_dict(*model, weights, /*strict=*/true);
  model->eval();
  torch::NoGradGuard no_grad;
  const torch::Tensor input = reference.at("input").toTensor();
  const torch::Tensor logits = model->forward(input), expected = reference.at("logits").toTensor();
  REQUIRE(logits.sizes() == expected.sizes());
  CHECK(logits.size(1) == model->time_steps(input.size(3)));
  const double difference = max_abs_difference(logits, expected);
  INFO(stages << ": " << testing::parameter_count(*full)
              << " parameters at full size; max |logits - EasyOCR's| " << difference);
  CHECK(difference < 1e-4);
  // The same weights as EasyOCR's train.py saves them ("module." keys), through pretrained=.
  Crnn released = small_recognizer(stages);
  load_pretrained(*released, easyocr_reference().file(stages + ".pth"));
  released->eval();
  CHECK(torch::equal(released->forward(input), logits));
  if (model->Transformation) {
    // The lines TPS rectifies, compared before the features average much of them away.
    const torch::Tensor rectified = model->Transformation(input);
    CHECK(max_abs_difference(rectified, reference.at("rectified").toTensor()) < 1e-4);
  }
  if (attn) {
    const torch::Tensor text = reference.at("text").toTensor();
    const torch::Tensor teacher = model->forward(input, text.narrow(1, 0, text.size(1) - 1));
    CHECK(max_abs_difference(teacher, reference.at("teacher_logits").toTensor()) < 1e-4);
  }
}

TEST_CASE("our recognizers' weights load strictly in EasyOCR's Model and give our logits there",
          "[models][ocr]") {
  const auto stages = GENERATE(as<std::string>{}, "TPS-ResNet-BiLSTM-Attn", "None-RCNN-None-CTC");
  INFO(stages);
  testing::TempDir dir("easyocr-load");
  torch::manual_seed(2);
  Crnn model = small_recognizer(stages);
  model->eval();
  const torch::Tensor input = torch::randn({2, 1, 32, 100});
  c10::impl::GenericDict weights(c10::StringType::get(), c10::TensorType::get());
  for (const auto& [name, tensor] : state_dict(*model)) weights.insert(name, tensor);
  c10::impl::GenericDict saved(c10::StringType::get(), c10::AnyType::get());
  saved.insert("state_dict", weights);
  saved.insert("input", input);
  write_archive(dir.file("ours.pt"), c10::IValue(saved));
  testing::run_python("crnn_fixture.py", "load " + stages + " " +
                                             testing::quoted(dir.file("ours.pt")) + " " +
                                             testing::quoted(dir.file("logits.pt")));
  const torch::Tensor theirs =
      read_archive(dir.file("logits.pt")).toGenericDict().at("logits").toTensor();
  torch::NoGradGuard no_grad;
  CHECK(max_abs_difference(model->forward(input), theirs) < 1e-4);
}

TEST_CASE("TPS holds EasyOCR's grid buffers and starts at RARE's fiducial points",
          "[models][ocr]") {
  Crnn model(stage_options("TPS-VGG-BiLSTM-CTC").output_channel(32).hidden_size(16).classes(11));
  const auto buffers = model->Transformation->GridGenerator->named_buffers();
  CHECK(buffers["inv_delta_C"].sizes() == torch::IntArrayRef({23, 23}));
  CHECK(buffers["P_hat"].sizes() == torch::IntArrayRef({32 * 100, 23}));
  // localization_fc2 keeps its zero weights and RARE's bias through EasyOCR's initialisation, so
  // a fresh TPS maps the line onto itself but for the initial points' y ramp.
  const auto& fc2 = model->Transformation->LocalizationNetwork->localization_fc2;
  CHECK(torch::all(fc2->weight == 0).item<bool>());
  CHECK(fc2->bias[0].item<float>() == -1.0f);
  CHECK(fc2->bias[1].item<float>() == 0.0f);
  CHECK(fc2->bias[19].item<float>() == -1.0f);
  // Every line is rectified to imgH x imgW whatever its width, so CTC sees imgW's steps.
  model->eval();
  torch::NoGradGuard no_grad;
  CHECK(model->forward(torch::rand({1, 1, 32, 64})).size(1) == model->time_steps(64));
  CHECK(model->time_steps(64) == 100 / 4 - 1);
}

TEST_CASE(
    "Attn text is EasyOCR's AttnLabelConverter's, its loss and decoding as train.py and test.py",
    "[ocr]") {
  const Charset charset(U"abc", "test");
  // "cab" and "b" in the charset's classes (a = 1), 0-padded to 4.
  const torch::Tensor targets =
      torch::tensor({3, 1, 2, 0, 2, 0, 0, 0}, torch::kLong).reshape({2, 4});
  const torch::Tensor lengths = torch::tensor({3, 1}, torch::kLong);
  const torch::Tensor text = attn_text(targets, lengths, 4);
  // [GO] = 0, [s] = 1, character class c is c + 1; padded with [GO].
  CHECK(torch::equal(
      text, torch::tensor({0, 4, 2, 3, 1, 0, 0, 3, 1, 0, 0, 0}, torch::kLong).reshape({2, 6})));
  CHECK(attn_classes(charset) == 5);

  // CrossEntropyLoss(ignore_index=0) over text[:, 1:]: the mean over the 4 + 2 counted tokens,
  // times N.
  torch::manual_seed(3);
  const torch::Tensor logits = torch::randn({2, 5, 5});
  const torch::Tensor log_p = torch::log_softmax(logits, 2);
  const torch::Tensor target = text.narrow(1, 1, 5);
  double sum = 0;
  int tokens = 0;
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t t = 0; t < 5; ++t) {
      const int64_t c = target[b][t].item<int64_t>();
      if (c == 0) continue;
      sum -= log_p[b][t][c].item<double>();
      ++tokens;
    }
  }
  CHECK(tokens == 6);
  CHECK(attn_loss_sum(logits, text).item<double>() == Approx(2 * sum / tokens).epsilon(1e-6));

  // Greedy: up to the first [s]; confidence the product of those steps' best probabilities.
  torch::Tensor decided = torch::full({1, 4, 5}, -10.0);
  decided[0][0][4] = 10;  // c
  decided[0][1][2] = 10;  // a
  decided[0][2][1] = 10;  // [s]
  decided[0][3][3] = 10;  // b, after the end
  const std::vector<DecodedText> decoded = attn_decode(decided, charset);
  CHECK(decoded[0].text == U"ca");
  const double p = torch::softmax(decided[0][0], 0).max().item<double>();
  CHECK(decoded[0].confidence == Approx(p * p).epsilon(1e-9));
}
