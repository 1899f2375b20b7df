// EasyOCR's recognizer (trainer/model.py): Transformation None or TPS, FeatureExtraction VGG,
// RCNN or ResNet, SequenceModeling None or BiLSTM, Prediction CTC or Attn; by default its released
// "None-VGG-BiLSTM-CTC". EasyOCR's module names and shapes, so its weights load with `pretrained=`
// (their `module.` prefix is stripped on load) and ours load in EasyOCR.
#pragma once
#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/any.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "config/setting_types.h"
#include "models/ocr_attention.h"
#include "models/tps.h"

namespace trainer {

struct CrnnOptions {
  TORCH_ARG(int64_t, in_channels) = 1;       ///< 1 (grey) or 3 (RGB)
  TORCH_ARG(int64_t, output_channel) = 256;  ///< VGG width; its stages use /8, /4, /2, x1 of it
  TORCH_ARG(int64_t, hidden_size) = 256;     ///< BiLSTM hidden size (and the size it projects to)
  TORCH_ARG(int64_t, classes) = 97;          ///< characters + 1; class 0 is the CTC blank
  TORCH_ARG(NormKind, norm) = NormKind::batch;
  TORCH_ARG(double, dropout) = 0.0;          ///< in training, on the sequence features and before Prediction
  TORCH_ARG(OcrTransformation, transformation) = OcrTransformation::none;
  TORCH_ARG(OcrFeatureExtraction, feature_extraction) = OcrFeatureExtraction::vgg;
  TORCH_ARG(OcrSequenceModeling, sequence_modeling) = OcrSequenceModeling::bilstm;
  TORCH_ARG(OcrPrediction, prediction) = OcrPrediction::ctc;
  TORCH_ARG(int64_t, num_fiducial) = 20;  ///< TPS: its fiducial points
  TORCH_ARG(int64_t, img_h) = 64;         ///< TPS: the height it rectifies lines to
  TORCH_ARG(int64_t, img_w) = 600;        ///< TPS: the width it rectifies lines to
  TORCH_ARG(int64_t, max_length) = 34;  ///< Attn: the longest text; it decodes max_length + 1 steps
};

// A bidirectional LSTM over [B, T, in] followed by a linear projection of both directions.
class BidirectionalLstmImpl : public torch::nn::Cloneable<BidirectionalLstmImpl> {
 public:
  BidirectionalLstmImpl(int64_t input_size, int64_t hidden_size, int64_t output_size);
  void reset() override;
  torch::Tensor forward(const torch::Tensor& input);

  int64_t input_size, hidden_size, output_size;
  torch::nn::LSTM rnn{nullptr};
  torch::nn::Linear linear{nullptr};
};
TORCH_MODULE(BidirectionalLstm);

// The convolutional stack (`FeatureExtraction.ConvNet.<i>`): 4 downsamplings of the height (x16)
// and 2 of the width (x4), then a 2x2 valid convolution, so an input of height 32 ends at height
// 1 and width W/4 - 1 (EasyOCR averages whatever height remains).
class VggFeatureExtractorImpl : public torch::nn::Cloneable<VggFeatureExtractorImpl> {
 public:
  VggFeatureExtractorImpl(int64_t in_channels, int64_t output_channel, NormKind norm);
  void reset() override;
  torch::Tensor forward(const torch::Tensor& input) { return ConvNet->forward(input); }

  int64_t in_channels, output_channel;
  NormKind norm;
  torch::nn::Sequential ConvNet{nullptr};
};
TORCH_MODULE(VggFeatureExtractor);

class CrnnImpl : public torch::nn::Cloneable<CrnnImpl> {
 public:
  explicit CrnnImpl(const CrnnOptions& options = {});
  void reset() override;
  // [B, C, H, W] (H >= 32, W >= 8) -> per-step logits [B, time_steps(W), classes]; Attn decodes
  // greedily, each step reading the previous step's best class.
  torch::Tensor forward(const torch::Tensor& input);
  // Attn only: teacher-forced, step i reads previous[:, i] ([B, steps]) -> [B, steps, classes].
  torch::Tensor forward(const torch::Tensor& input, const torch::Tensor& previous);
  // The steps forward() yields for an input `width` pixels wide: with CTC the feature columns
  // (VGG W/4 - 1, RCNN and ResNet W/4 + 1, of imgW under TPS), with Attn max_length + 1.
  int64_t time_steps(int64_t width) const;

  CrnnOptions options;
  TpsSpatialTransformer Transformation{nullptr};    ///< TPS only
  torch::nn::AnyModule FeatureExtraction;           ///< a Vgg-, Rcnn- or ResNetFeatureExtractor
  torch::nn::Sequential SequenceModeling{nullptr};  ///< BiLSTM only
  torch::nn::Linear Prediction{nullptr};            ///< CTC
  Attention AttentionPrediction{nullptr};  ///< Attn, registered as `Prediction` as in EasyOCR

 private:
  // The sequence features [B, T, C] of an input, before Prediction.
  torch::Tensor sequence_features(const torch::Tensor& input);
};
TORCH_MODULE(Crnn);

// EasyOCR's initialisation (trainer/train.py): weights Kaiming-normal, biases zero, norm weights
// one; TPS's localization_fc2 keeps its own (RARE's initial fiducial points).
void init_crnn_weights(CrnnImpl& model);

}  // namespace trainer
