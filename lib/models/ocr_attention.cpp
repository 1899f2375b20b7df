#include "models/ocr_attention.h"

#include <torch/torch.h>

namespace trainer {

AttentionCellImpl::AttentionCellImpl(int64_t input_size, int64_t hidden_size, int64_t classes)
    : input_size(input_size), hidden_size(hidden_size), classes(classes) {
  reset();
}

void AttentionCellImpl::reset() {
  i2h = register_module(
      "i2h", torch::nn::Linear(torch::nn::LinearOptions(input_size, hidden_size).bias(false)));
  h2h = register_module("h2h", torch::nn::Linear(hidden_size, hidden_size));
  score = register_module("score",
                          torch::nn::Linear(torch::nn::LinearOptions(hidden_size, 1).bias(false)));
  rnn = register_module("rnn", torch::nn::LSTMCell(input_size + classes, hidden_size));
}

std::tuple<torch::Tensor, torch::Tensor> AttentionCellImpl::forward(
    const std::tuple<torch::Tensor, torch::Tensor>& state, const torch::Tensor& features,
    const torch::Tensor& features_proj, const torch::Tensor& previous_one_hot) {
  const torch::Tensor energy =
      score(torch::tanh(features_proj + h2h(std::get<0>(state)).unsqueeze(1)));  // [B, T, 1]
  const torch::Tensor alpha = torch::softmax(energy, 1);
  const torch::Tensor context =
      torch::bmm(alpha.permute({0, 2, 1}), features).squeeze(1);  // [B, input_size]
  return rnn(torch::cat({context, previous_one_hot}, 1), state);
}

AttentionImpl::AttentionImpl(int64_t input_size, int64_t hidden_size, int64_t classes)
    : input_size(input_size), hidden_size(hidden_size), classes(classes) {
  reset();
}

void AttentionImpl::reset() {
  attention_cell =
      register_module("attention_cell", AttentionCell(input_size, hidden_size, classes));
  generator = register_module("generator", torch::nn::Linear(hidden_size, classes));
}

std::tuple<torch::Tensor, torch::Tensor> AttentionImpl::zero_state(
    const torch::Tensor& features) const {
  const torch::Tensor zeros = features.new_zeros({features.size(0), hidden_size});
  return {zeros, zeros.clone()};
}

torch::Tensor AttentionImpl::forward_teacher_forced(const torch::Tensor& features,
                                                    const torch::Tensor& previous) {
  const torch::Tensor features_proj = attention_cell->i2h(features);
  const torch::Tensor one_hots = torch::one_hot(previous, classes).to(features.dtype());
  auto state = zero_state(features);
  std::vector<torch::Tensor> hiddens;
  for (int64_t i = 0; i < previous.size(1); ++i) {
    state = attention_cell(state, features, features_proj, one_hots.select(1, i));
    hiddens.push_back(std::get<0>(state));
  }
  return generator(torch::stack(hiddens, 1));
}

torch::Tensor AttentionImpl::forward_greedy(const torch::Tensor& features, int64_t steps) {
  const torch::Tensor features_proj = attention_cell->i2h(features);
  auto state = zero_state(features);
  torch::Tensor symbol = torch::zeros({features.size(0)}, features.options().dtype(torch::kLong));
  std::vector<torch::Tensor> logits;
  for (int64_t i = 0; i < steps; ++i) {
    state = attention_cell(state, features, features_proj,
                           torch::one_hot(symbol, classes).to(features.dtype()));
    logits.push_back(generator(std::get<0>(state)));
    symbol = logits.back().argmax(1);
  }
  return torch::stack(logits, 1);
}

}  // namespace trainer
