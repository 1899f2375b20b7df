// EasyOCR's recognizer "None-VGG-BiLSTM-CTC" (trainer/model.py with its VGG_FeatureExtractor and
// BidirectionalLSTM), with EasyOCR's module names and shapes so its released weights load with
// `pretrained=` (their `module.` prefix is stripped on load) and ours load in EasyOCR.
#pragma once
#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "config/setting_types.h"

namespace trainer {

struct CrnnOptions {
  TORCH_ARG(int64_t, in_channels) = 1;       ///< 1 (grey) or 3 (RGB)
  TORCH_ARG(int64_t, output_channel) = 256;  ///< VGG width; its stages use /8, /4, /2, x1 of it
  TORCH_ARG(int64_t, hidden_size) = 256;     ///< BiLSTM hidden size (and the size it projects to)
  TORCH_ARG(int64_t, classes) = 97;          ///< characters + 1; class 0 is the CTC blank
  TORCH_ARG(NormKind, norm) = NormKind::batch;
  TORCH_ARG(double, dropout) = 0.0;          ///< in training, on the sequence features and before Prediction
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
  // [B, C, H, W] (H >= 32, W >= 8) -> per-time-step logits [B, T, classes] with T = W/4 - 1.
  torch::Tensor forward(const torch::Tensor& input);
  // The time steps forward() yields for an input `width` pixels wide.
  static int64_t time_steps(int64_t width) { return width / 4 - 1; }

  CrnnOptions options;
  VggFeatureExtractor FeatureExtraction{nullptr};
  torch::nn::Sequential SequenceModeling{nullptr};
  torch::nn::Linear Prediction{nullptr};
};
TORCH_MODULE(Crnn);

// EasyOCR's initialisation (trainer/train.py): weights Kaiming-normal, biases zero, norm weights one.
void init_crnn_weights(CrnnImpl& model);

}  // namespace trainer
