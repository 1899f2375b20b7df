#include "models/trainable.h"

#include <algorithm>
#include <set>

#include <torch/nn/modules/batchnorm.h>

#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

bool under(const std::string& name, const std::string& prefix) {
  if (name.size() == prefix.size()) return name == prefix;
  return name.size() > prefix.size() && name[prefix.size()] == '.' && name.compare(0, prefix.size(), prefix) == 0;
}

std::vector<std::string> child_names(const torch::nn::Module& module, const std::string& prefix) {
  std::vector<std::string> names;
  for (const auto& child : module.named_children()) names.push_back(prefix + child.key());
  return names;
}

}  // namespace

ParameterCounts count_parameters(const torch::nn::Module& model) {
  ParameterCounts counts;
  for (const auto& parameter : model.parameters()) {
    counts.total += parameter.numel();
    if (parameter.requires_grad()) counts.trainable += parameter.numel();
  }
  return counts;
}

std::vector<std::string> layer_names(const torch::nn::Module& model) {
  const std::vector<std::string> top = child_names(model, "");
  if (top.size() != 1) return top;
  const std::vector<std::string> inner = child_names(*model.named_children()[top.front()], top.front() + ".");
  return inner.empty() ? top : inner;
}

std::vector<std::string> freeze_layers(torch::nn::Module& model, const FreezeSpec& spec) {
  if (spec.empty()) return {};
  const std::vector<std::string> layers = layer_names(model);
  std::vector<std::string> frozen = spec.layers;
  if (spec.first_layers > 0) {
    if (spec.first_layers > static_cast<int64_t>(layers.size())) {
      throw UserError("key 'freeze' asks for the first " + std::to_string(spec.first_layers) + " layers, but the model has " +
                      std::to_string(layers.size()) + ": " + join(layers, ", "));
    }
    frozen.assign(layers.begin(), layers.begin() + spec.first_layers);
  }
  const auto parameters = model.named_parameters();
  std::set<std::string> frozen_parameters;
  for (const std::string& prefix : frozen) {
    bool found = false;
    for (const auto& item : parameters) {
      if (!under(item.key(), prefix)) continue;
      frozen_parameters.insert(item.key());
      found = true;
    }
    // Counted layers may hold nothing (ReLU, Upsample); a named one that does is most likely a slip.
    if (!found && spec.first_layers == 0) {
      throw UserError("key 'freeze' names '" + prefix + "', but no parameter of the model is under it; its layers: " +
                      join(layers, ", "));
    }
  }
  const bool anything_left = std::any_of(parameters.begin(), parameters.end(), [&](const auto& item) {
    return item.value().requires_grad() && frozen_parameters.count(item.key()) == 0;
  });
  if (!anything_left) throw UserError("key 'freeze' leaves no parameter of the model to train");
  for (const auto& item : parameters) {
    if (frozen_parameters.count(item.key()) > 0) item.value().set_requires_grad(false);
  }
  return frozen;
}

bool has_batch_norm(const torch::nn::Module& module) {
  const auto uses_batch_statistics = [](const torch::nn::Module& m) {
    return m.as<torch::nn::BatchNorm1d>() || m.as<torch::nn::BatchNorm2d>() ||
           m.as<torch::nn::BatchNorm3d>();
  };
  if (uses_batch_statistics(module)) return true;
  for (const auto& child : module.modules(/*include_self=*/false)) {
    if (uses_batch_statistics(*child)) return true;
  }
  return false;
}

}  // namespace trainer
