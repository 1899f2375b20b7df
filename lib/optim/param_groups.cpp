#include "optim/param_groups.h"

namespace trainer {

std::vector<ParamGroup> make_param_groups(torch::nn::Module& model, double lr, double weight_decay) {
  std::vector<ParamGroup> groups(3);
  groups[kWeightGroup] = {"weights", {}, lr, weight_decay};
  groups[kNormGroup] = {"norm", {}, lr, 0.0};
  groups[kBiasGroup] = {"bias", {}, lr, 0.0};
  for (const auto& item : model.named_parameters()) {
    if (!item.value().requires_grad()) continue;
    const std::string& name = item.key();
    const bool is_bias = name.size() >= 4 && name.compare(name.size() - 4, 4, "bias") == 0;
    // Norm-layer scales are the remaining 1-d parameters (timm's ndim <= 1 rule).
    const size_t group = is_bias ? kBiasGroup : item.value().dim() <= 1 ? kNormGroup : kWeightGroup;
    groups[group].params.push_back(item.value());
  }
  return groups;
}

}  // namespace trainer
