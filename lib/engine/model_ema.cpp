#include "engine/model_ema.h"

#include <torch/utils.h>

#include <cmath>
#include <sstream>

#include "util/error.h"
#include "util/torch_compat.h"

namespace trainer {
namespace {

std::vector<std::pair<std::string, torch::Tensor>> model_tensors(const torch::nn::Module& model) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& item : model.named_parameters()) out.emplace_back(item.key(), item.value());
  for (const auto& item : model.named_buffers()) out.emplace_back(item.key(), item.value());
  return out;
}

// The model must still be the one the EMA was built from; a mismatch is a programming error.
std::vector<std::pair<std::string, torch::Tensor>> matching_tensors(
    const torch::nn::Module& model, const std::vector<std::pair<std::string, torch::Tensor>>& ema) {
  std::vector<std::pair<std::string, torch::Tensor>> current = model_tensors(model);
  TORCH_CHECK(current.size() == ema.size(), "ModelEma: the model has ", current.size(),
              " tensors, the EMA ", ema.size());
  for (size_t i = 0; i < current.size(); ++i) {
    TORCH_CHECK(current[i].first == ema[i].first, "ModelEma: model tensor '", current[i].first,
                "' where the EMA has '", ema[i].first, "'");
  }
  return current;
}

std::string shape_text(torch::IntArrayRef sizes) {
  std::ostringstream out;
  out << sizes;
  return out.str();
}

}  // namespace

ModelEma::ModelEma(torch::nn::Module& model, double decay, double tau)
    : decay_(decay), tau_(tau) {
  torch::NoGradGuard no_grad;
  for (const auto& [name, tensor] : model_tensors(model)) {
    tensors_.emplace_back(name, tensor.detach().clone());
  }
  TORCH_CHECK(!tensors_.empty(), "ModelEma: the model has no parameters or buffers");
  const auto options = torch::TensorOptions().device(tensors_.front().second.device()).dtype(torch::kFloat);
  decay_now_ = torch::zeros({}, options);
  complement_now_ = torch::ones({}, options);
}

void ModelEma::advance() {
  TORCH_CHECK(!swapped_, "ModelEma::advance while the EMA weights are swapped into the model");
  updates_ += 1;
  const double d = decay_ * (1 - std::exp(-static_cast<double>(updates_) / tau_));
  decay_now_.fill_(d);
  complement_now_.fill_(1 - d);
}

void ModelEma::update(torch::nn::Module& model) {
  TORCH_CHECK(!swapped_, "ModelEma::update while the EMA weights are swapped into the model");
  torch::NoGradGuard no_grad;
  const auto current = matching_tensors(model, tensors_);
  std::vector<torch::Tensor> ema_floating;
  std::vector<torch::Tensor> model_floating;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const torch::Tensor& ema = tensors_[i].second;
    const torch::Tensor& value = current[i].second;
    if (ema.is_floating_point()) {
      ema_floating.push_back(ema);
      model_floating.push_back(value.detach());
    } else {
      ema.copy_(value);
    }
  }
  if (ema_floating.empty()) return;
  // foreach: a few kernel launches on CUDA instead of two per tensor.
  compat::foreach_blend_(ema_floating, decay_now_, model_floating, complement_now_);
}

void ModelEma::swap(torch::nn::Module& model) {
  torch::NoGradGuard no_grad;
  const auto current = matching_tensors(model, tensors_);
  // Values move, storage stays: captured CUDA graphs hold the live tensors' addresses, and cuDNN's
  // LSTM needs its weights where flatten_parameters packed them (elsewhere it repacks every call).
  for (size_t i = 0; i < current.size(); ++i) {
    const torch::Tensor& live = current[i].second;
    const torch::Tensor& ema = tensors_[i].second;
    const torch::Tensor held = live.detach().clone();
    live.detach().copy_(ema);
    ema.copy_(held);
  }
  swapped_ = !swapped_;
}

int64_t ModelEma::updates() const { return updates_; }

std::vector<std::pair<std::string, torch::Tensor>> ModelEma::state() const {
  TORCH_CHECK(!swapped_, "ModelEma::state while the EMA weights are swapped into the model");
  std::vector<std::pair<std::string, torch::Tensor>> out = tensors_;
  out.emplace_back("updates", torch::scalar_tensor(updates_, torch::kLong));
  return out;
}

void ModelEma::load_state(const std::map<std::string, torch::Tensor>& state) {
  TORCH_CHECK(!swapped_, "ModelEma::load_state while the EMA weights are swapped into the model");
  for (const auto& [key, tensor] : this->state()) {
    const auto found = state.find(key);
    if (found == state.end()) throw UserError("EMA state has no '" + key + "'");
    if (found->second.sizes() != tensor.sizes()) {
      throw UserError("EMA state '" + key + "' has shape " + shape_text(found->second.sizes()) +
                      " but this model needs " + shape_text(tensor.sizes()));
    }
  }
  torch::NoGradGuard no_grad;
  for (auto& [name, tensor] : tensors_) tensor.copy_(state.at(name));
  updates_ = state.at("updates").item<int64_t>();
}

}  // namespace trainer
