#include "models/crnn.h"

#include <torch/nn/init.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/pooling.h>

#include "models/grcnn.h"
#include "models/norm.h"
#include "models/ocr_resnet.h"

namespace trainer {
namespace {

torch::nn::Conv2d conv(int64_t in, int64_t out, int64_t kernel, int64_t padding, bool bias) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel).stride(1).padding(padding).bias(bias));
}

torch::nn::ReLU relu() { return torch::nn::ReLU(torch::nn::ReLUOptions(/*inplace=*/true)); }

// Halves the height only: text lines are wide, so the width keeps its resolution for CTC.
torch::nn::MaxPool2d pool_height() {
  return torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions({2, 1}).stride({2, 1}));
}

}  // namespace

BidirectionalLstmImpl::BidirectionalLstmImpl(int64_t input_size, int64_t hidden_size, int64_t output_size)
    : input_size(input_size), hidden_size(hidden_size), output_size(output_size) {
  reset();
}

void BidirectionalLstmImpl::reset() {
  rnn = register_module(
      "rnn", torch::nn::LSTM(torch::nn::LSTMOptions(input_size, hidden_size).bidirectional(true).batch_first(true)));
  linear = register_module("linear", torch::nn::Linear(hidden_size * 2, output_size));
}

torch::Tensor BidirectionalLstmImpl::forward(const torch::Tensor& input) {
  return linear(std::get<0>(rnn->forward(input)));
}

VggFeatureExtractorImpl::VggFeatureExtractorImpl(int64_t in_channels, int64_t output_channel, NormKind norm)
    : in_channels(in_channels), output_channel(output_channel), norm(norm) {
  reset();
}

void VggFeatureExtractorImpl::reset() {
  // EasyOCR's widths: output_channel / 8, / 4, / 2 and x1 (int() of a float division).
  const int64_t c0 = output_channel / 8, c1 = output_channel / 4, c2 = output_channel / 2, c3 = output_channel;
  // The layer order fixes the indices in the state-dict keys (ConvNet.0, .3, .6, .8, .11, .12, ...).
  ConvNet = torch::nn::Sequential();
  ConvNet->push_back(conv(in_channels, c0, 3, 1, true));  // 0
  ConvNet->push_back(relu());
  ConvNet->push_back(torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2).stride(2)));
  ConvNet->push_back(conv(c0, c1, 3, 1, true));  // 3
  ConvNet->push_back(relu());
  ConvNet->push_back(torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2).stride(2)));
  ConvNet->push_back(conv(c1, c2, 3, 1, true));  // 6
  ConvNet->push_back(relu());
  ConvNet->push_back(conv(c2, c2, 3, 1, true));  // 8
  ConvNet->push_back(relu());
  ConvNet->push_back(pool_height());
  ConvNet->push_back(conv(c2, c3, 3, 1, false));  // 11
  ConvNet->push_back(make_norm2d(norm, c3));      // 12
  ConvNet->push_back(relu());
  ConvNet->push_back(conv(c3, c3, 3, 1, false));  // 14
  ConvNet->push_back(make_norm2d(norm, c3));      // 15
  ConvNet->push_back(relu());
  ConvNet->push_back(pool_height());
  ConvNet->push_back(conv(c3, c3, 2, 0, true));  // 18
  ConvNet->push_back(relu());
  register_module("ConvNet", ConvNet);
}

CrnnImpl::CrnnImpl(const CrnnOptions& options) : options(options) { reset(); }

namespace {

torch::nn::AnyModule feature_extractor(const CrnnOptions& options) {
  switch (options.feature_extraction()) {
    case OcrFeatureExtraction::rcnn:
      return torch::nn::AnyModule(
          RcnnFeatureExtractor(options.in_channels(), options.output_channel(), options.norm()));
    case OcrFeatureExtraction::resnet:
      return torch::nn::AnyModule(
          ResNetFeatureExtractor(options.in_channels(), options.output_channel(), options.norm()));
    case OcrFeatureExtraction::vgg:
      break;
  }
  return torch::nn::AnyModule(
      VggFeatureExtractor(options.in_channels(), options.output_channel(), options.norm()));
}

}  // namespace

void CrnnImpl::reset() {
  // Registration follows EasyOCR's Model.__init__, which fixes the state-dict key order.
  if (options.transformation() == OcrTransformation::tps) {
    Transformation = register_module(
        "Transformation",
        TpsSpatialTransformer(options.num_fiducial(), options.img_h(), options.img_w(),
                              options.in_channels(), options.norm()));
  }
  FeatureExtraction = feature_extractor(options);
  register_module("FeatureExtraction", FeatureExtraction.ptr());
  int64_t sequence_size = options.output_channel();
  if (options.sequence_modeling() == OcrSequenceModeling::bilstm) {
    SequenceModeling = torch::nn::Sequential(
        BidirectionalLstm(options.output_channel(), options.hidden_size(), options.hidden_size()),
        BidirectionalLstm(options.hidden_size(), options.hidden_size(), options.hidden_size()));
    register_module("SequenceModeling", SequenceModeling);
    sequence_size = options.hidden_size();
  }
  if (options.prediction() == OcrPrediction::attn) {
    AttentionPrediction = register_module(
        "Prediction", Attention(sequence_size, options.hidden_size(), options.classes()));
  } else {
    Prediction = register_module("Prediction", torch::nn::Linear(sequence_size, options.classes()));
  }
  init_crnn_weights(*this);
}

int64_t CrnnImpl::time_steps(int64_t width) const {
  if (options.prediction() == OcrPrediction::attn) return options.max_length() + 1;
  const int64_t columns = Transformation ? options.img_w() : width;
  return options.feature_extraction() == OcrFeatureExtraction::vgg ? columns / 4 - 1
                                                                   : columns / 4 + 1;
}

torch::Tensor CrnnImpl::sequence_features(const torch::Tensor& input) {
  TORCH_CHECK(input.dim() == 4 && input.size(2) >= 32 && input.size(3) >= 8,
              "CRNN expects [B, C, H >= 32, W >= 8], got ", input.sizes());
  const torch::Tensor lines = Transformation ? Transformation(input) : input;
  // [B, C, H', T] -> mean over the remaining height -> [B, T, C], as EasyOCR's
  // AdaptiveAvgPool2d((None, 1)). Dropout is functional, not a module, so the state dict keeps
  // EasyOCR's keys.
  torch::Tensor features =
      torch::dropout(FeatureExtraction.forward(lines).mean(2).permute({0, 2, 1}), options.dropout(),
                     is_training());
  if (SequenceModeling) {
    features =
        torch::dropout(SequenceModeling->forward(features), options.dropout(), is_training());
  }
  return features.contiguous();
}

torch::Tensor CrnnImpl::forward(const torch::Tensor& input) {
  const torch::Tensor features = sequence_features(input);
  if (AttentionPrediction)
    return AttentionPrediction->forward_greedy(features, time_steps(input.size(3)));
  return Prediction(features);
}

torch::Tensor CrnnImpl::forward(const torch::Tensor& input, const torch::Tensor& previous) {
  TORCH_CHECK(AttentionPrediction, "only an Attn recognizer reads the previous symbols");
  return AttentionPrediction->forward_teacher_forced(sequence_features(input), previous);
}

void init_crnn_weights(CrnnImpl& model) {
  torch::NoGradGuard no_grad;
  for (auto& item : model.named_parameters()) {
    const std::string& name = item.key();
    torch::Tensor& parameter = item.value();
    if (name.find("localization_fc2") != std::string::npos) continue;
    if (name.find("bias") != std::string::npos) {
      parameter.zero_();
    } else if (name.find("weight") != std::string::npos) {
      // Kaiming needs a fan-in; EasyOCR's try/except fills the 1-d norm weights with one instead.
      if (parameter.dim() < 2) {
        parameter.fill_(1.0);
      } else {
        torch::nn::init::kaiming_normal_(parameter);
      }
    }
  }
}

}  // namespace trainer
