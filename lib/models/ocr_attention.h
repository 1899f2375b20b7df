// EasyOCR's Prediction "Attn" (trainer/modules/prediction.py, the attention decoder of its
// recognizers): an LSTM cell that attends over the sequence features at each of `steps` steps and
// reads the previous step's symbol, with EasyOCR's names (`attention_cell.i2h`, `generator` …).
// Symbols are classes; class 0 is the start symbol a decoding begins from (EasyOCR's [GO]).
#pragma once
#include <torch/nn/cloneable.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <utility>

namespace trainer {

// One decoding step: attention weights over the features from the previous hidden state, then
// the LSTM cell on [context, one-hot previous symbol].
class AttentionCellImpl : public torch::nn::Cloneable<AttentionCellImpl> {
 public:
  AttentionCellImpl(int64_t input_size, int64_t hidden_size, int64_t classes);
  void reset() override;
  // features_proj = i2h(features) [B, T, hidden], computed once for all steps.
  std::tuple<torch::Tensor, torch::Tensor> forward(
      const std::tuple<torch::Tensor, torch::Tensor>& state, const torch::Tensor& features,
      const torch::Tensor& features_proj, const torch::Tensor& previous_one_hot);

  int64_t input_size, hidden_size, classes;
  torch::nn::Linear i2h{nullptr}, h2h{nullptr}, score{nullptr};
  torch::nn::LSTMCell rnn{nullptr};
};
TORCH_MODULE(AttentionCell);

class AttentionImpl : public torch::nn::Cloneable<AttentionImpl> {
 public:
  AttentionImpl(int64_t input_size, int64_t hidden_size, int64_t classes);
  void reset() override;
  // features [B, T, input_size] -> logits [B, steps, classes]. Teacher-forced: the symbol read at
  // step i is previous[:, i] ([B, steps]); greedy: it is the best class of step i - 1, class 0 at
  // the first step.
  torch::Tensor forward_teacher_forced(const torch::Tensor& features,
                                       const torch::Tensor& previous);
  torch::Tensor forward_greedy(const torch::Tensor& features, int64_t steps);

  int64_t input_size, hidden_size, classes;
  AttentionCell attention_cell{nullptr};
  torch::nn::Linear generator{nullptr};

 private:
  std::tuple<torch::Tensor, torch::Tensor> zero_state(const torch::Tensor& features) const;
};
TORCH_MODULE(Attention);

}  // namespace trainer
