// The CRNN must be EasyOCR's recognizer: same keys in the same order, same shapes, same logits
// from the same weights, and EasyOCR's released files (DataParallel `module.` keys) must load.
#include <catch2/catch.hpp>

#include "easyocr_reference.h"
#include "io/pretrained.h"
#include "io/state_dict.h"
#include "io/tensor_archive.h"
#include "models/crnn.h"
#include "test_helpers.h"

using namespace trainer;

namespace {

std::string easyocr_file(const std::string& name) {
  static const testing::PythonOutput fixture("crnn_fixture.py");
  return fixture.file(name);
}

Crnn easyocr_en() { return Crnn(CrnnOptions().in_channels(1).output_channel(256).hidden_size(256).classes(97)); }

}  // namespace

TEST_CASE("crnn has EasyOCR's keys, order and shapes and gives its logits", "[models][ocr]") {
  const c10::impl::GenericDict reference = read_archive(easyocr_file("crnn.pt")).toGenericDict();
  Crnn model = easyocr_en();
  const auto weights = testing::check_easyocr_layout(*model, reference);
  CHECK(testing::parameter_count(*model) == 3'781'345);  // EasyOCR's en recognizer: about 3.78 M parameters for 97 classes

  load_state_dict(*model, weights, /*strict=*/true);
  model->eval();
  torch::NoGradGuard no_grad;
  const torch::Tensor logits = model->forward(reference.at("input").toTensor());
  CHECK(logits.sizes() == torch::IntArrayRef({2, 24, 97}));
  CHECK(torch::allclose(logits, reference.at("logits").toTensor(), 1e-4, 1e-4));
}

TEST_CASE("EasyOCR's DataParallel weights load with pretrained=, a new charset replaces only the head",
          "[models][ocr]") {
  const std::string file = easyocr_file("easyocr_en.pth");
  Crnn same = easyocr_en();
  load_pretrained(*same, file);
  const auto released = read_pretrained(file).tensors;
  CHECK(released.begin()->first.rfind("module.", 0) == 0);
  CHECK(torch::equal(same->Prediction->weight, released.at("module.Prediction.weight")));

  // Digits only: 11 classes. Every tensor but the Prediction head comes from the file.
  Crnn digits(CrnnOptions().in_channels(1).output_channel(256).hidden_size(256).classes(11));
  const torch::Tensor head_before = digits->Prediction->weight.clone();
  load_pretrained(*digits, file);
  CHECK(torch::equal(digits->Prediction->weight, head_before));
  CHECK(torch::equal(digits->SequenceModeling->named_parameters()["1.linear.weight"],
                     released.at("module.SequenceModeling.1.linear.weight")));
  CHECK(torch::equal(
      digits->FeatureExtraction.get<VggFeatureExtractor>()->ConvNet->named_parameters()["0.weight"],
      released.at("module.FeatureExtraction.ConvNet.0.weight")));
}

TEST_CASE("crnn time steps follow the width and need a height of 32", "[models][ocr]") {
  Crnn model(CrnnOptions().in_channels(3).output_channel(32).hidden_size(16).classes(11));
  model->eval();
  torch::NoGradGuard no_grad;
  for (int64_t width : {8, 64, 100, 600}) {
    INFO(width);
    CHECK(model->forward(torch::zeros({2, 3, 32, width})).sizes() ==
          torch::IntArrayRef({2, model->time_steps(width), 11}));
  }
  CHECK(model->time_steps(600) == 149);  // EasyOCR's 600 px lines give 149 steps
  CHECK_THROWS(model->forward(torch::zeros({1, 3, 16, 64})));
}

TEST_CASE("crnn starts from EasyOCR's initialisation", "[models][ocr]") {
  torch::manual_seed(0);
  Crnn model = easyocr_en();
  for (const auto& item : model->named_parameters()) {
    const std::string& name = item.key();
    const torch::Tensor& tensor = item.value();
    INFO(name);
    if (name.find("bias") != std::string::npos) {
      CHECK(torch::all(tensor == 0).item<bool>());
    } else if (tensor.dim() == 1) {
      CHECK(torch::all(tensor == 1).item<bool>());  // norm weights
    }
  }
  // kaiming_normal_ (fan_in): std = sqrt(2 / fan_in); fan_in of the LSTM's input weights = 256.
  const torch::Tensor lstm = model->SequenceModeling->named_parameters()["0.rnn.weight_ih_l0"];
  CHECK(lstm.std().item<double>() == Approx(std::sqrt(2.0 / 256)).epsilon(0.03));
}

TEST_CASE("crnn dropout acts in training only and leaves EasyOCR's keys", "[models][ocr]") {
  torch::manual_seed(4);
  Crnn plain(CrnnOptions().output_channel(32).hidden_size(16).classes(11));
  Crnn dropped(CrnnOptions().output_channel(32).hidden_size(16).classes(11).dropout(0.3));
  const auto keys = [](const torch::nn::Module& module) {
    std::vector<std::string> names;
    for (const auto& [name, tensor] : state_dict(module)) names.push_back(name);
    return names;
  };
  CHECK(keys(*plain) == keys(*dropped));
  load_state_dict(*dropped, to_map(state_dict(*plain)), true);
  const torch::Tensor input = torch::rand({2, 1, 32, 64});
  torch::NoGradGuard no_grad;
  plain->eval();
  dropped->eval();
  CHECK(torch::equal(plain->forward(input), dropped->forward(input)));
  plain->train();
  dropped->train();
  // BatchNorm in training mode uses batch statistics either way; only dropout differs.
  CHECK_FALSE(torch::allclose(plain->forward(input), dropped->forward(input)));
  CHECK_FALSE(torch::equal(dropped->forward(input), dropped->forward(input)));
}
